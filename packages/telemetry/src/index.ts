export { createLogger, silentLogger, REDACTED_PATHS, type Logger, type LoggerConfig } from './logger.ts';
