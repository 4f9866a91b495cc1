
interface AnonymousSchema_2 {
  'chunk': string;
}
export { AnonymousSchema_2 };