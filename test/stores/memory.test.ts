import { MemoryStore } from '../../lib/stores/memory.ts';
import { storeContract } from './contract.ts';

storeContract('memory', async () => {
  const clock = { now: Date.now() };
  return { store: new MemoryStore({ now: () => clock.now }), clock, cleanup: async () => {} };
});
