// The game page's weight: what a first load and a reload of /play cost, in Debian's
// Chromium (playwright-core, as the browser tests drive it) on a 390x844 phone.
//
//   node benchmarks/page_weight.mjs BASE_URL [--runs N] [--locale en-GB]
//
// (benchmarks/page_weight.py starts a server of its own and runs this.) Each run is a new
// browser context (an empty HTTP cache, a new player): /play loaded until the view is
// shown and the network is quiet, then reloaded (the browser's reload button), then
// opened again from the address bar (a later visit). Twice over: on loopback as it is,
// and on a simulated slow phone network (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s
// up: Lighthouse's mobile figures), where every round trip shows.
//
// Read through the DevTools protocol, per load: the requests that reached the server (not
// those the browser's cache answered alone), split into the page's files (/play...) and
// the API's (/v1...); their 304s; the bytes transferred (encoded: headers and bodies as
// they came over the wire) and the bodies' decoded size; the content encodings seen; and
// the time from the navigation to the view shown; on a first load, the time until the
// first roll is playable (the Daily Dice' start button, or its round, on the page) and the
// layout shift (CLS: the largest session window of shifts, as web-vitals counts it, over
// the load until the network is quiet). The counts and bytes are the same in
// every run (the page asks for the same things); the times are medians over the runs.
import { launch } from '../tests/system/browser/lib.mjs';

const args = process.argv.slice(2);
const baseUrl = (args.find((a) => !a.startsWith('--')) || 'http://127.0.0.1:8000').replace(/\/$/, '');
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const RUNS = Number(option('runs', '5'));
const LOCALE = option('locale', 'en-GB');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const NETWORKS = {
  loopback: null,
  'slow phone network': { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) | 0, uploadThroughput: (750e3 / 8) | 0 },
};

/** Every request of one load, from the DevTools protocol's Network events. */
function recorder(session) {
  let requests = new Map();
  const get = (id) => {
    if (!requests.has(id)) requests.set(id, { id, cached: false, bytes: 0, decoded: 0 });
    return requests.get(id);
  };
  session.on('Network.requestWillBeSent', (e) => {
    const r = get(e.requestId);
    r.url = e.request.url;
  });
  // The headers as sent (Accept-Encoding is added below the page, by the network stack).
  session.on('Network.requestWillBeSentExtraInfo', (e) => {
    const headers = Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k.toLowerCase(), v]));
    get(e.requestId).acceptEncoding = headers['accept-encoding'];
  });
  session.on('Network.requestServedFromCache', (e) => { get(e.requestId).cached = true; });
  session.on('Network.responseReceived', (e) => {
    const r = get(e.requestId);
    r.status = e.response.status;
    if (e.response.fromDiskCache || e.response.fromPrefetchCache || e.response.fromServiceWorker) r.cached = true;
    const headers = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    r.encoding = headers['content-encoding'] || 'identity';
  });
  // The status as it came over the wire: a 304 shows here (the page is given the cached 200).
  session.on('Network.responseReceivedExtraInfo', (e) => { get(e.requestId).wireStatus = e.statusCode; });
  session.on('Network.dataReceived', (e) => { get(e.requestId).decoded += e.dataLength; });
  session.on('Network.loadingFinished', (e) => { get(e.requestId).bytes = e.encodedDataLength; });
  session.on('Network.loadingFailed', (e) => { get(e.requestId).failed = e.errorText; });
  return {
    take() {
      const taken = [...requests.values()].filter((r) => r.url && !r.url.startsWith('data:'));
      requests = new Map();
      return taken;
    },
  };
}

function summary(requests) {
  const served = requests.filter((r) => !r.cached && r.status !== undefined);
  const path = (r) => new URL(r.url).pathname;
  const files = served.filter((r) => path(r).startsWith('/play'));
  const sum = (list, key) => list.reduce((total, r) => total + r[key], 0);
  const failed = requests.filter((r) => r.failed);
  if (failed.length) throw new Error(`requests failed: ${failed.map((r) => `${r.url} (${r.failed})`).join(', ')}`);
  return {
    requests: served.length,
    pageRequests: files.length,
    apiRequests: served.filter((r) => path(r).startsWith('/v1')).length,
    notModified: files.filter((r) => (r.wireStatus ?? r.status) === 304).length,
    fromCache: requests.filter((r) => r.cached).length,
    bytes: sum(served, 'bytes'),
    pageBytes: sum(files, 'bytes'),
    pageDecoded: sum(files, 'decoded'),
    encodings: [...new Set(files.filter((r) => r.status === 200).map((r) => r.encoding))].join(' ') || '-',
    acceptEncoding: [...new Set(files.map((r) => r.acceptEncoding).filter(Boolean))].join(' | '),
  };
}

// Milliseconds from the navigation's start until a view of the page is shown.
async function shown(page) {
  await page.waitForFunction(() => document.querySelector('main > section.view:not([hidden])'), null, { polling: 'raf' });
  const at = await page.evaluate(() => performance.now());
  await page.waitForLoadState('networkidle');
  return at;
}

// Milliseconds from the navigation's start until today's first roll can be played: the
// Daily Dice' start button (or its round, resumed) is on the page.
async function playable(page) {
  await page.waitForFunction(() => document.querySelector('.view-daily:not([hidden]) .start-card button, .view-daily:not([hidden]) .round'), null, { polling: 'raf' });
  return page.evaluate(() => performance.now());
}

// Every layout shift not caused by input, watched from the start of each document: CLS as
// web-vitals counts it (shifts less than 1 s apart, in windows of at most 5 s: the largest).
function watchShifts() {
  const windows = [];
  let current = null;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      if (current && entry.startTime - current.last < 1000 && entry.startTime - current.first < 5000) {
        current.value += entry.value;
        current.last = entry.startTime;
      } else {
        current = { first: entry.startTime, last: entry.startTime, value: entry.value };
        windows.push(current);
      }
    }
  }).observe({ type: 'layout-shift', buffered: true });
  window.__layoutShift = () => Math.max(0, ...windows.map((w) => w.value));
}

async function oneRun(browser, network) {
  const context = await browser.newContext({ baseURL: baseUrl, locale: LOCALE, timezoneId: 'UTC', ...PHONE });
  await context.addInitScript(watchShifts);
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  await session.send('Network.enable');
  if (network) await session.send('Network.emulateNetworkConditions', network);
  const record = recorder(session);
  const loads = {};
  try {
    await page.goto('/play');
    const firstRoll = await playable(page);
    const ms = await shown(page);
    const cls = await page.evaluate(() => window.__layoutShift());
    loads['first load'] = { ms, firstRoll, cls, ...summary(record.take()) };
    await page.reload();
    loads.reload = { ms: await shown(page), ...summary(record.take()) };
    await page.goto('about:blank');
    record.take();
    await page.goto('/play');
    loads['later visit'] = { ms: await shown(page), ...summary(record.take()) };
  } finally {
    await context.close();
  }
  return loads;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

const browser = await launch();
try {
  console.log(`GET ${baseUrl}/play in Chromium at 390x844, locale ${LOCALE}, ${RUNS} runs (times: medians)`);
  for (const [name, network] of Object.entries(NETWORKS)) {
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) runs.push(await oneRun(browser, network));
    console.log(`\n${name}:`);
    console.log('load         requests (page+api, 304s)  cached  transferred (page)   page bodies  encodings   shown in');
    for (const load of Object.keys(runs[0])) {
      const s = runs[0][load];
      for (const other of runs) {
        // (Bytes vary by a few from run to run: the headers' dates and request ids.)
        if (other[load].requests !== s.requests || other[load].pageRequests !== s.pageRequests) {
          console.log(`  (${load}: runs differ: ${other[load].requests} requests, ${other[load].pageRequests} of the page)`);
        }
      }
      const ms = median(runs.map((run) => run[load].ms));
      console.log(
        `${load.padEnd(12)} ${String(s.requests).padStart(3)} (${s.pageRequests}+${s.apiRequests}, ${s.notModified} x 304)`.padEnd(40)
        + `${String(s.fromCache).padStart(6)}  ${kB(s.bytes).padStart(9)} (${kB(s.pageBytes)})`.padEnd(30)
        + `${kB(s.pageDecoded).padStart(9)}    ${s.encodings.padEnd(10)} ${ms.toFixed(0).padStart(6)} ms`,
      );
    }
    const first = runs.map((run) => run['first load']);
    console.log(`first load: first roll playable in ${median(first.map((l) => l.firstRoll)).toFixed(0)} ms (median; `
      + `${Math.min(...first.map((l) => l.firstRoll)).toFixed(0)}–${Math.max(...first.map((l) => l.firstRoll)).toFixed(0)}), `
      + `layout shift (CLS) ${median(first.map((l) => l.cls)).toFixed(3)} (most ${Math.max(...first.map((l) => l.cls)).toFixed(3)})`);
    console.log(`Accept-Encoding sent: ${runs[0]['first load'].acceptEncoding}`);
  }
} finally {
  await browser.close();
}
