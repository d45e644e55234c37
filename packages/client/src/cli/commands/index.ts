import type { Command } from '../command.ts';
import { adminCommands } from './admin.ts';
import { cancelCommand } from './cancel.ts';
import { getCommand } from './get.ts';
import { listCommand } from './list.ts';
import { pushCommands } from './push.ts';
import { sendCommand } from './send.ts';
import { tailCommand } from './tail.ts';

export const COMMANDS: readonly Command[] = [
  sendCommand,
  getCommand,
  listCommand,
  cancelCommand,
  tailCommand,
  ...pushCommands,
  ...adminCommands,
];
