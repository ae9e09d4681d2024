/**
 * The data of each message in a chunk of an event stream (text/event-stream), and what is left over
 * (an incomplete message). Only `data:` lines matter here: the app sends one JSON line per message.
 */
export function splitEventStream(buffer: string): { messages: string[]; rest: string } {
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const messages: string[] = [];
  for (const block of blocks) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length > 0) messages.push(data.join('\n'));
  }
  return { messages, rest };
}
