/** The gateway did not answer at all (nothing listens there, a wrong host, a network error). */
export class GatewayUnreachableError extends Error {}

/** Why a fetch failed, as the operating system said it (ECONNREFUSED, ENOTFOUND, ...). */
function failureOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/**
 * fetch() to a gateway, where not being reached says how to get one: start the local gateway,
 * or point the command at the right one.
 */
export async function fetchGateway(url: string, target: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(target, init);
  } catch (error) {
    throw new GatewayUnreachableError(
      `cannot reach ${url} (${failureOf(error)}): is the gateway running? Start the local one with \`npm start\` (or \`npx toolgate serve\`) in the project, ` +
        'or point the command at yours with --url or TOOLGATE_URL',
    );
  }
}
