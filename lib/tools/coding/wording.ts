/** Small pieces of the sentences the tools answer with. */

/** "1 line", "3 lines". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Where a search looked: the default "." reads badly at the end of a sentence. */
export function describeLocation(path: string): string {
  return path === '.' || path === './' ? 'the working directory' : path;
}
