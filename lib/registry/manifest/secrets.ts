import { SECRET_REFERENCE } from '../../crypto/secrets.ts';
import type { ManifestProblem } from '../executors/kind.ts';

const SECRET_FIELD = /secret|token|password|passwd|api[-_]?key|authorization|credential|private[-_]?key|cookie/i;

/**
 * Secrets never live in manifests: any field or header whose name looks like a secret must
 * hold "env:NAME", and URLs must not carry user:password.
 */
export function findInlineSecrets(value: unknown, path: string): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const visit = (node: unknown, at: string, key: string): void => {
    if (typeof node === 'string') {
      if (SECRET_FIELD.test(key) && !SECRET_REFERENCE.test(node)) {
        problems.push({ path: at, message: `secret written inline; write "env:NAME" and set NAME in the runtime's environment (or as a Workers secret)` });
      }
      if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]+:[^/@\s]*@/i.test(node)) {
        problems.push({ path: at, message: 'URL carries credentials inline; pass them as a secret "env:NAME" instead' });
      }
      return;
    }
    if (Array.isArray(node)) node.forEach((item, i) => visit(item, `${at}[${i}]`, key));
    else if (node !== null && typeof node === 'object') {
      for (const [childKey, child] of Object.entries(node)) visit(child, /^[A-Za-z_$][\w$]*$/.test(childKey) ? `${at}.${childKey}` : `${at}[${JSON.stringify(childKey)}]`, childKey);
    }
  };
  visit(value, path, '');
  return problems;
}
