import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level: string, name = 'earshot'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}

/** Logger for tests and tools that must stay quiet unless asked. */
export function silentLogger(): Logger {
  return pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}
