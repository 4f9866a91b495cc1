
type AnonymousSchema_71 = "model" | "timeout" | 'null';
export { AnonymousSchema_71 };