/**
 * The runtime's own RegExp constructor, taken when this module loads: the eval-free validation
 * engine swaps the global one for the linear-time matcher while it validates
 * (lib/validation/linear-patterns.ts), and the matcher's own per-character tests must not go
 * through that swap.
 */
export const NativeRegExp: RegExpConstructor = globalThis.RegExp;
