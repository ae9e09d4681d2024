import { describe, expect, it } from 'vitest';
import { splitEventStream } from './event-stream';

describe('the event stream read over fetch', () => {
  it('gives the data of each whole message and keeps an incomplete one for the next chunk', () => {
    const first = splitEventStream(
      ': connected\n\nevent: message\ndata: {"a":1}\n\nevent: message\ndata: {"b"',
    );
    expect(first.messages).toEqual(['{"a":1}']);
    const second = splitEventStream(`${first.rest}:2}\n\n`);
    expect(second).toEqual({ messages: ['{"b":2}'], rest: '' });
  });

  it('reads CRLF line ends and joins a message of several data lines', () => {
    expect(splitEventStream('data: one\r\ndata:two\r\n\r\n').messages).toEqual(['one\ntwo']);
  });
});
