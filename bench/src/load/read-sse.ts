import type { Dispatcher } from 'undici';

/** Reads an SSE response to its end, calling `onEvent` with each event's id and data. */
export async function readSse(
  res: Dispatcher.ResponseData,
  onEvent: (id: string | undefined, data: string) => void,
): Promise<void> {
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`subscribe: HTTP ${res.statusCode}`);
  }
  res.body.setEncoding('utf8');
  let buffer = '';
  for await (const value of res.body as AsyncIterable<string>) {
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id: string | undefined;
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trimStart();
      }
      if (data) onEvent(id, data);
    }
  }
}
