/**
 * Hosts Pact's Verifier in a process of its own, because its native core prints to stdout (which
 * `--json` keeps for the result alone). Provider states and messages are not handled here: each
 * setup and each message is asked of the parent over IPC, which runs them through the public API
 * and its webhook receiver, and keeps any error for the check. Kept free of svc imports, so Node
 * runs it as it is, from dist/ or from src/.
 */
import { Verifier } from '@pact-foundation/pact';

interface StartMessage {
  type: 'start';
  pactFile: string;
  provider: string;
  providerBaseUrl: string;
  /** The forwarder's token, sent with every request of the interactions. */
  providerHeaders: Record<string, string>;
  states: string[];
  messages: string[];
  timeoutMs: number;
}

interface Reply {
  type: 'reply';
  id: number;
  result?: Record<string, unknown>;
  content?: unknown;
  metadata?: Record<string, string>;
  error?: string;
}

const pending = new Map<number, (reply: Reply) => void>();
let nextId = 0;

function ask(kind: 'state' | 'message', payload: Record<string, unknown>): Promise<Reply> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    process.send?.({ type: 'ask', id, kind, payload });
  });
}

async function verify(start: StartMessage): Promise<void> {
  const stateHandlers = Object.fromEntries(
    start.states.map((state) => [
      state,
      {
        setup: async (params?: unknown) => {
          const reply = await ask('state', { state, params: params ?? {}, action: 'setup' });
          // Pact would only log this and run the interaction with the contract's example values;
          // the parent has recorded the error and fails the check itself.
          if (reply.error !== undefined) throw new Error(reply.error);
          return reply.result as Record<string, string>;
        },
        teardown: async () => undefined,
      },
    ]),
  );
  const messageProviders = Object.fromEntries(
    start.messages.map((description) => [
      description,
      async () => {
        // Message providers get no state values: the parent finds the delivery by the description.
        const reply = await ask('message', { description });
        if (reply.error !== undefined) throw new Error(reply.error);
        return { __pactMessageMetadata: reply.metadata ?? {}, message: reply.content };
      },
    ]),
  );
  const verifier = new Verifier({
    provider: start.provider,
    providerBaseUrl: start.providerBaseUrl,
    customProviderHeaders: start.providerHeaders,
    pactUrls: [start.pactFile],
    logLevel: 'error',
    timeout: start.timeoutMs,
    stateHandlers,
    messageProviders,
  });
  try {
    const output = await verifier.verifyProvider();
    process.send?.({ type: 'result', ok: true, json: output });
  } catch (error) {
    process.send?.({ type: 'result', ok: false, json: (error as Error).message });
  }
}

process.on('message', (message: StartMessage | Reply) => {
  if (message.type === 'start') {
    void verify(message).finally(() => process.disconnect?.());
  } else if (message.type === 'reply') {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  }
});
