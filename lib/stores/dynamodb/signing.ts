import { AwsV4Signer } from 'aws4fetch';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (an assumed role, Lambda's execution role) come with one. */
  sessionToken?: string;
}

export interface SigningScope {
  credentials: AwsCredentials;
  region: string;
  service: string;
  /** Derived signing keys, one per day and scope, kept between requests. */
  cache?: Map<string, ArrayBuffer>;
}

/**
 * Signs a request with AWS Signature Version 4 (aws4fetch, WebCrypto only) and returns its
 * headers, `Authorization`, `X-Amz-Date` and `X-Amz-Security-Token` included. Every header given
 * is signed, Content-Type too, as the AWS SDKs do. `datetime` (`YYYYMMDDTHHMMSSZ`) is for test
 * vectors; requests are signed at the current time.
 */
export async function signAwsRequest(request: { url: string; method: string; headers: Record<string, string>; body: string }, scope: SigningScope, datetime?: string): Promise<Headers> {
  const signer = new AwsV4Signer({
    ...request,
    ...scope.credentials,
    region: scope.region,
    service: scope.service,
    allHeaders: true,
    ...(scope.cache ? { cache: scope.cache } : {}),
    ...(datetime ? { datetime } : {}),
  });
  return (await signer.sign()).headers;
}
