/** The part of `@asyncapi/generator` (which ships no types) that scripts/generate.ts uses. */
declare module "@asyncapi/generator" {
  export default class Generator {
    constructor(templateName: string, targetDir: string, options?: { forceWrite?: boolean; templateParams?: Record<string, string> });
    generateFromString(asyncapiString: string): Promise<void>;
  }
}
