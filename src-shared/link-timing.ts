/**
 * How web mode's page tells a live app from a hung one. The event stream can stay open while the app
 * answers nothing (its process stopped, its main thread stuck): no error, no close, and the page kept
 * showing "15 running" and a time left for ever. So the server says something on the stream every
 * HEARTBEAT_MS, and the page takes a stream silent for SILENT_AFTER_MS as lost.
 *
 * Four beats, not one or two: with both cores loaded, the server's timer and write and the page's read
 * each come late by scheduling delays and garbage collection pauses (well under a second), and the
 * server's main thread may be busy with a long piece of synchronous work for a few seconds (its heavy
 * work runs in workers). Fifteen seconds of slack over the beat absorbs all of that, so the banner
 * does not come and go on a busy machine, while a hung app is still named within half a minute.
 * A beat every five seconds costs one comment line per page: nothing to measure.
 */
export const HEARTBEAT_MS = 5_000;
export const SILENT_AFTER_MS = 4 * HEARTBEAT_MS;
