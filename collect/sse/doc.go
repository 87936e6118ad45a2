// Package sse reads Server-Sent Events (text/event-stream) as an
// OpenAI-compatible streaming response carries them, fast and with no
// allocation per event.
//
// Framing follows the WHATWG rules where they matter to a benchmark client
// and vLLM's StreamedResponseHandler where they differ:
//
//   - lines end in LF, CRLF or a lone CR, and a CRLF split across two
//     network reads is still one line end;
//   - a blank line ends an event; lines starting with ':' are comments;
//   - "data:" values (one leading space removed) of several lines are
//     joined with LF; "event:" sets the event type; other fields (id,
//     retry, unknown) are ignored;
//   - a last event that the stream ends without a blank line is still
//     delivered (vLLM accepts a trailing data line);
//   - an event with no data field is not delivered (keep-alives).
//
// Reader records which network read completed each event (Event.Read), so
// that a caller can tell events that arrived coalesced in one read apart
// from events that arrived separately.
package sse
