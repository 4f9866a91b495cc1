
interface AnonymousSchema_85 {
  'byte_range': number[];
  'time_range': number[];
}
export { AnonymousSchema_85 };