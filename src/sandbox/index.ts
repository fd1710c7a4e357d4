/** The sandbox for tests of code that calls the API: `import { startSandbox } from 'skin-market/sandbox'`. */
export { type OperatorCall, type OperatorMethod, sandboxOf } from './operator-call.js';
export {
  type Sandbox,
  type SandboxAccount,
  type SandboxAccountOptions,
  type SandboxClock,
  type SandboxFaultState,
  type SandboxFaults,
  type SandboxOptions,
  startSandbox,
} from './start-sandbox.js';
export type { SandboxWebhookDelivery, SandboxWebhookReceiver } from './webhook-receiver.js';
