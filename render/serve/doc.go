// Package serve is perflab's preview server: it serves the built site on a
// loopback address, watches the site's inputs (content/, results/,
// templates/) recursively, rebuilds after a burst of changes settles, and
// tells the open pages to reload through Server-Sent Events.
//
// The server never hands out a page it knows to be stale: a page request
// waits until every change seen before it has been built. Changes seen
// after it do not hold it back, so a file written to all the time (an
// engine's log during perflab collect) cannot keep pages from loading. A failed build does not stop the server; every page is
// then served with an overlay naming the file, line and message, and the
// overlay goes away by itself when a later build succeeds.
//
// A change travels: fsnotify event → watcher (every directory below the
// roots watched, new ones added as they appear; editors' temporaries and
// hidden files dropped) → page requests start to wait → the burst settles
// (Config.Quiet, at most Config.MaxWait) → Config.Build with the changed
// paths → a "state" event to every open page. The build function decides
// what to redo; perflab serve passes render.Builder, which re-renders only
// the pages whose inputs changed and is tested to write the same bytes as
// a full build.
//
// The reload script is injected into HTML responses at serve time, so the
// files on disk are byte for byte what a normal build writes. The script
// carries the build generation the page was served at; when its event
// stream (re)connects and the server reports another generation, the page
// reloads, so a change that lands between page load and stream connection
// is not missed. A hidden page (a background tab) closes its stream, since
// a browser opens only 6 connections to a host, and connects again when
// shown.
//
// Safety: the default address is 127.0.0.1:8080; while bound to loopback,
// requests whose Host header is not a loopback name are refused (DNS
// rebinding); files are opened through an os.Root on the site directory,
// so neither "..", encoded or not, nor a symbolic link can reach outside
// it; every response carries Cache-Control: no-store.
package serve
