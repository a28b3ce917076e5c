// Node entrypoint: serve the gateway from process.env (PORT, TOOLGATE_MANIFEST, TOOLGATE_DEMO_KEY, ...).
import { startLocalGateway } from '../lib/cli/serve.ts';

await startLocalGateway();
