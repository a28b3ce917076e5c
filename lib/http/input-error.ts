/**
 * A query parameter, path parameter or header the route cannot use. Thrown by the parameter
 * readers (params.ts) so routes stay short; the app answers it with `status` (400
 * `invalid_request`, or 404 `not_found` for a path naming something that cannot exist) and the
 * message, which names the parameter and what it accepts.
 */
export class InputError extends Error {
  readonly status: 400 | 404;

  constructor(message: string, status: 400 | 404 = 400) {
    super(message);
    this.name = 'InputError';
    this.status = status;
  }
}
