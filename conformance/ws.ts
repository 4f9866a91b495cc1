export async function runWebSocket(_: any): Promise<void> {}
