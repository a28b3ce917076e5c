import type { AST } from '@eslint-community/regexpp';

/** The nodes the matcher and the check walk (character classes are atoms: not walked into). */
export type PatternNode = AST.Element | AST.Alternative | AST.Pattern;

/** The alternatives of a node that has them (the pattern itself and groups). */
export function alternativesOf(node: AST.Node): AST.Alternative[] | undefined {
  if (node.type === 'Pattern' || node.type === 'Group' || node.type === 'CapturingGroup') return node.alternatives;
  return undefined;
}
