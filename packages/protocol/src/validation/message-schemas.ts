import { z } from 'zod';
import { Role, type Part } from '../types/message.ts';
import { jsonValueSchema, metadataSchema } from './json-value.ts';
import type { ProtocolLimits } from './limits.ts';
import { protoObject } from './proto-object.ts';
import {
  absoluteUrlSchema,
  base64Schema,
  boundedList,
  idSchema,
  opaqueIdSchema,
  optionalId,
  roleSchema,
} from './scalars.ts';

const PART_CONTENT = ['text', 'raw', 'url', 'data'] as const;

export const metadataOf = (limits: ProtocolLimits) =>
  metadataSchema(limits.maxJsonDepth, limits.maxMetadataBytes);

/** Part: exactly one of text/raw/url/data (digest §2.2), plus filename/mediaType/metadata. */
export function partSchema(limits: ProtocolLimits) {
  return protoObject(
    {
      text: z.string().max(limits.maxTextPartLength).optional(),
      raw: base64Schema().optional(),
      url: absoluteUrlSchema(limits.maxUrlLength, false).optional(),
      data: jsonValueSchema(limits.maxJsonDepth, limits.maxDataPartBytes).optional(),
      metadata: metadataOf(limits).optional(),
      filename: z.string().max(limits.maxNameLength).optional(),
      mediaType: z.string().max(limits.maxNameLength).optional(),
    },
    // `data` is a google.protobuf.Value, for which JSON null is a value, not "unset" (digest §1).
    { keepNull: ['data'] },
  )
    .superRefine((part, ctx) => {
      const set = PART_CONTENT.filter((key) => part[key] !== undefined);
      if (set.length !== 1) {
        ctx.addIssue({ code: 'custom', message: 'exactly one of text, raw, url, data must be set' });
      }
    })
    .transform((part): Part => {
      const { text, raw, url, data, ...common } = part;
      if (text !== undefined) return { ...common, text };
      if (raw !== undefined) return { ...common, raw };
      if (url !== undefined) return { ...common, url };
      return { ...common, data: data ?? null };
    });
}

/** `message.parts`: the count is checked before any part is parsed, so a huge array fails fast. */
function partsSchema(limits: ProtocolLimits) {
  return z
    .array(z.unknown())
    .min(1, 'must contain at least one part')
    .max(limits.maxPartsPerMessage, `must contain at most ${limits.maxPartsPerMessage} parts`)
    .pipe(z.array(partSchema(limits)));
}

export interface MessageSchemaOptions {
  /** SendMessage: a client may only send ROLE_USER messages (digest §2.2 Role). */
  userOnly: boolean;
}

/** Message (digest §2.2). */
export function messageSchema(limits: ProtocolLimits, options: MessageSchemaOptions) {
  const role = options.userOnly
    ? roleSchema().refine((r) => r === Role.USER, {
        message: 'must be ROLE_USER for a message sent by a client',
      })
    : roleSchema();
  return protoObject({
    messageId: opaqueIdSchema(limits.maxIdLength),
    contextId: optionalId(limits.maxIdLength),
    taskId: optionalId(limits.maxIdLength),
    role,
    parts: partsSchema(limits),
    metadata: metadataOf(limits).optional(),
    extensions: boundedList(z.string().max(limits.maxUrlLength), limits.maxListItems).optional(),
    referenceTaskIds: boundedList(idSchema(limits.maxIdLength), limits.maxListItems).optional(),
  });
}
