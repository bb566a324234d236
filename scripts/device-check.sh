#!/usr/bin/env bash
# The device check for a machine with a GPU (issue 19): `sparring doctor`, `sparring bench` on
# the CPU and on each GPU provider found, a co-evolution run of the paper preset on each, and the
# WebGPU parity tests; then one table. A few minutes on a GPU machine; on a 2-core CPU-only one
# with software Vulkan, tens of minutes (PRESET=quick shortens the runs).
#
#   scripts/device-check.sh                 # cpu and every GPU provider doctor finds
#   PROVIDERS="cpu webgpu" PRESET=quick scripts/device-check.sh
#
# Environment: PROVIDERS (default: cpu plus the available GPU providers), PRESET (paper),
# ROUNDS (bench rounds, 5), RUN_TIMEOUT (seconds per run, 900), OUT (a folder for the JSON, a temp one).
set -uo pipefail
cd "$(dirname "$0")/.."
export ORT_DISABLE_TELEMETRY=1
PRESET="${PRESET:-paper}"
ROUNDS="${ROUNDS:-5}"
RUN_TIMEOUT="${RUN_TIMEOUT:-900}"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
sparring() { node bin/sparring.js "$@"; }

echo "== sparring doctor" >&2
sparring doctor --json > "$OUT/doctor.json" 2> "$OUT/doctor.err" || { cat "$OUT/doctor.err" >&2; exit 1; }
sparring doctor 2>/dev/null >&2
if [ -z "${PROVIDERS:-}" ]; then
  PROVIDERS="cpu $(node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(d.providers.filter(p=>p.available&&p.provider!=="cpu").map(p=>p.provider).join(" "))' "$OUT/doctor.json")"
fi
echo "providers: $PROVIDERS; preset $PRESET; results in $OUT" >&2

for p in $PROVIDERS; do
  echo "== bench --provider $p" >&2
  sparring bench --provider "$p" --rounds "$ROUNDS" --only da --json > "$OUT/bench-$p.json" 2> "$OUT/bench-$p.err" || echo "bench on $p failed: see $OUT/bench-$p.err" >&2
  echo "== run --preset $PRESET --provider $p" >&2
  rm -f "$OUT/lab-$p.db"*
  start=$(date +%s)
  timeout "$RUN_TIMEOUT" node bin/sparring.js run --preset "$PRESET" --provider "$p" --db "$OUT/lab-$p.db" --json > "$OUT/run-$p.json" 2> "$OUT/run-$p.err"
  echo "$? $(( $(date +%s) - start ))" > "$OUT/run-$p.status"
done

echo "== WebGPU parity tests" >&2
npx vitest run models/webgpu-parity.test.ts > "$OUT/parity.txt" 2>&1
echo "$?" > "$OUT/parity.status"

node - "$OUT" $PROVIDERS <<'JS'
const fs = require('fs');
const [out, ...providers] = process.argv.slice(2);
const read = (f) => { try { return JSON.parse(fs.readFileSync(`${out}/${f}`, 'utf8')); } catch { return null; } };
const n = (x) => (typeof x === 'number' ? Math.round(x).toLocaleString('en-US') : '–');
const rows = [['provider', 'used', 'DA fwd B=1/s', 'DA fwd B=512/s', 'train B=256/s', 'GRPO/s', 'arena ep/s', 'run', 'run s', 'matches', 'last W_DA', 'final DA routing']];
for (const p of providers) {
  const b = read(`bench-${p}.json`) ?? {};
  const r = read(`run-${p}.json`);
  const [rc, secs] = (fs.existsSync(`${out}/run-${p}.status`) ? fs.readFileSync(`${out}/run-${p}.status`, 'utf8') : '? ?').trim().split(' ');
  const last = r?.heldout?.at(-1);
  rows.push([
    p, b.device?.provider ?? '–', n(b.da_forward_per_s_b1), n(b.da_forward_per_s_b512), n(b.train_step_per_s_b256), n(b.grpo_samples_per_s), n(b.arena_episodes_per_s),
    r ? `${r.status} (${r.device?.provider ?? '?'})` : `failed (rc ${rc})`, secs, r ? String(r.matches.length) : '–',
    r?.matches?.length ? `${(100 * r.matches.at(-1).wDa).toFixed(1)}%` : '–',
    last ? `${last.da} ${(100 * last.heldout.routingAccuracy).toFixed(1)}%` : '–',
  ]);
}
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
const line = (r) => r.map((c, i) => (i === 0 || i === 1 || i === 7 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
const doctor = read('doctor.json');
console.log(`${doctor?.machine?.platform ?? ''}, ${doctor?.machine?.cpus ?? '?'} cores (${doctor?.machine?.cpuModel ?? '?'}); auto → ${doctor?.auto?.provider} (${doctor?.auto?.reason})`);
console.log(line(rows[0]));
console.log(w.map((x) => '-'.repeat(x)).join('  '));
for (const r of rows.slice(1)) console.log(line(r));
const parity = fs.readFileSync(`${out}/parity.txt`, 'utf8');
const status = fs.readFileSync(`${out}/parity.status`, 'utf8').trim();
const tests = /Tests\s+(.*)/.exec(parity.replace(/\x1b\[[0-9;]*m/g, ''))?.[1] ?? '?';
const seen = /largest \|cpu − webgpu\|: (.*)/.exec(parity)?.[1];
console.log(`\nWebGPU parity tests: ${status === '0' ? 'passed' : 'FAILED'} (${tests.trim()})${seen ? `\n  largest differences: ${seen}` : ''}`);
JS
