/** What the http-throughput module and its server worker say to each other. */

export interface ServerWorkerData {
  apiKey: string;
}

/** The worker's first message: where each server listens. */
export interface ServerPorts {
  gatewayPort: number;
  /** The same gateway with its audit recorder removed: shows what the audit trail costs. */
  unauditedPort: number;
  barePort: number;
}

/** Asked by the main thread around a measurement; the answer is the server thread's CPU time (µs). */
export const CPU_REQUEST = 'cpu';

export interface CpuReply {
  cpuUs: number;
}
