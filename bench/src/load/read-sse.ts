/** Reads an SSE response to its end, calling `onEvent` with each event's id and data. */
export async function readSse(
  res: Response,
  onEvent: (id: string | undefined, data: string) => void,
): Promise<void> {
  if (!res.ok || !res.body) throw new Error(`subscribe: HTTP ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
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
