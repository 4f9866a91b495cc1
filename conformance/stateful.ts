export async function runStateful(_: any): Promise<void> {}
