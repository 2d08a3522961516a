// A mail sink on 127.0.0.1 for the fuzz run: accepts every message and keeps nothing, so the
// verification mails the fuzzer's notification emails cause go nowhere but loopback. Prints its
// port on stdout, then runs until killed.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () => callback());
  },
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.server.address() as AddressInfo).port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(signal, () => server.close(() => process.exit(0)));
