// @asyncapi/html-template depends on puppeteer (only for its PDF option, unused here): never download a browser.
module.exports = { skipDownload: true };
