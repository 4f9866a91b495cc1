
type AnonymousSchema_4 = string;
export { AnonymousSchema_4 };