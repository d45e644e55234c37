import type { JsonObject, JsonValue } from '../types/common.ts';
import type { Part } from '../types/message.ts';
import { toStandardBase64 } from '../validation/scalars.ts';
import { compact, nonEmpty, recordOf } from './shape.ts';
import type { PartV03 } from './types.ts';

/**
 * A 1.0 `data` part may hold any JSON value; a 0.3 one only an object (digest §13.3). Other values
 * travel as `{value: …}` with this metadata flag, the convention of a2a-js's compat layer, so the
 * SDK's 0.3 client (and our reverse translation) unwraps them again.
 */
export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

/** 1.0 → 0.3. `mediaType`/`filename` exist on 0.3 file parts only; elsewhere they are dropped. */
export function toV03Part(part: Part): PartV03 {
  const { metadata } = part;
  if (part.text !== undefined) return compact({ kind: 'text', text: part.text, metadata });
  const file = { mimeType: nonEmpty(part.mediaType), name: nonEmpty(part.filename) };
  // 0.3 `bytes` is standard base64; 1.0 readers also accept the URL-safe alphabet (digest §1).
  if (part.raw !== undefined)
    return compact({ kind: 'file', file: compact({ bytes: toStandardBase64(part.raw), ...file }), metadata });
  if (part.url !== undefined)
    return compact({ kind: 'file', file: compact({ uri: part.url, ...file }), metadata });
  const data = recordOf(part.data);
  if (data) return compact({ kind: 'data', data: data as JsonObject, metadata });
  return {
    kind: 'data',
    data: { value: part.data },
    metadata: { ...metadata, [DATA_PART_COMPAT_FLAG]: true },
  };
}

/** 0.3 → 1.0. A part without `kind` is read by the member it has; a malformed one stays malformed. */
export function fromV03Part(part: PartV03): Part {
  const p = recordOf(part);
  if (!p) return part as unknown as Part;
  const metadata = recordOf(p['metadata']) as JsonObject | undefined;
  switch (p['kind'] ?? inferKind(p)) {
    case 'text':
      return compact({ text: p['text'], metadata }) as Part;
    case 'file': {
      const file = recordOf(p['file']) ?? {};
      return compact({
        raw: file['bytes'],
        url: file['uri'],
        mediaType: file['mimeType'],
        filename: file['name'],
        metadata,
      }) as Part;
    }
    case 'data':
      return fromV03Data(p['data'] as JsonValue, metadata);
    default: {
      const { kind: _kind, ...rest } = p;
      return rest as unknown as Part;
    }
  }
}

function fromV03Data(data: JsonValue, metadata: JsonObject | undefined): Part {
  const wrapped = recordOf(data);
  if (metadata?.[DATA_PART_COMPAT_FLAG] === true && wrapped && 'value' in wrapped) {
    const { [DATA_PART_COMPAT_FLAG]: _flag, ...rest } = metadata;
    return compact({
      data: wrapped['value'] as JsonValue,
      metadata: Object.keys(rest).length > 0 ? rest : undefined,
    });
  }
  return compact({ data, metadata });
}

function inferKind(p: Record<string, unknown>): string | undefined {
  return ['text', 'file', 'data'].find((key) => key in p);
}
