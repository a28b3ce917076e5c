/**
 * `npm run build:lambda`: the Lambda function's bundle, offline, as `serverless deploy` builds it
 * (functions/lambda.ts with serverless.yml's custom.esbuild options, which serverless-esbuild
 * applies), into dist/lambda/. Checks the build before a deploy without AWS credentials: the
 * Serverless Framework itself resolves serverless.yml's SSM parameters even to package.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { buildLambdaBundle } from '../test/deploy/serverless-config.ts';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist/lambda');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const bundle = await buildLambdaBundle(OUT);
const kib = (file: string) => `${Math.round(statSync(file).size / 1024)} KiB`;
console.log(`${relative(ROOT, bundle)}: ${kib(bundle)} (source map ${kib(`${bundle}.map`)}), functions/lambda.ts bundled with serverless.yml's esbuild options`);
