#!/usr/bin/env bash
# compare-hugo.sh builds the issue-11 corpus (render/corpus: the seed pages
# and pages of their shape, 28 a lab, copied COPIES times) with perflab and
# with Hugo, alternating, and prints the medians and ratios:
#
#   render/bench/compare-hugo.sh [COPIES [ROUNDS]]     # defaults 33 (924 pages), 5
#
# perflab cold: an empty build cache; perflab rebuild: nothing changed,
# every page from the cache (checked byte-identical to the cold build).
# Hugo (Debian's: apt-get install -y hugo) gets minimal templates and
# renders no admonitions, so it does less work than perflab. Peak memory
# (max RSS) and bytes per HTML page are printed too; bytes per page are
# compared with a one-lab (28-page) build. Everything is written under
# $WORK (default .cache/compare-hugo, which git ignores).
set -euo pipefail
cd "$(dirname "$0")/../.."
COPIES=${1:-33}
ROUNDS=${2:-5}
WORK=${WORK:-.cache/compare-hugo}
command -v hugo >/dev/null || { echo "compare-hugo: hugo not on PATH (apt-get install -y hugo)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "compare-hugo: /usr/bin/time missing (apt-get install -y time)" >&2; exit 1; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

go build -o "$WORK/perflab" ./cmd/perflab
go run ./render/bench/gencorpus -out "$WORK/corpus" -copies "$COPIES" >/dev/null
go run ./render/bench/gencorpus -out "$WORK/lab" -copies 1 >/dev/null
PAGES=$(find "$WORK/corpus/content" -name '*.md' | wc -l)

# Hugo: the same content directory, minimal templates.
mkdir -p "$WORK/hugo/layouts/_default"
cat >"$WORK/hugo/config.toml" <<'EOF'
baseURL = "/"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
[markup.goldmark.renderer]
unsafe = true
EOF
cat >"$WORK/hugo/layouts/_default/baseof.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body>{{ block "main" . }}{{ end }}</body></html>
EOF
echo '{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}' >"$WORK/hugo/layouts/_default/single.html"
echo '{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}' >"$WORK/hugo/layouts/_default/list.html"

# timed NAME CMD...: runs CMD, appends "wall user+sys maxrss_kb" to $WORK/NAME.times.
timed() {
	local name=$1
	shift
	/usr/bin/time -o "$WORK/t" -f "%e %U %S %M" "$@" >/dev/null 2>&1
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$WORK/t" >>"$WORK/$name.times"
}
perflab_cold() {
	rm -rf "$WORK/out-perflab" "$WORK/cache"
	timed perflab-cold "$WORK/perflab" build --content "$WORK/corpus/content" --results "$WORK/corpus/results" --out "$WORK/out-perflab" --cache-dir "$WORK/cache"
}
rm -f "$WORK"/*.times
for ((i = 0; i < ROUNDS; i++)); do
	perflab_cold
	cp -r "$WORK/out-perflab" "$WORK/out-cold"
	timed perflab-rebuild "$WORK/perflab" build --content "$WORK/corpus/content" --results "$WORK/corpus/results" --out "$WORK/out-perflab" --cache-dir "$WORK/cache"
	if ! diff -r -q "$WORK/out-cold" "$WORK/out-perflab" >/dev/null; then
		echo "compare-hugo: the rebuild from the cache differs from the cold build" >&2
		exit 1
	fi
	rm -rf "$WORK/out-cold" "$WORK/out-hugo"
	timed hugo hugo --quiet -s "$WORK/hugo" --contentDir "$WORK/corpus/content" -d "$WORK/out-hugo"
done

median() { sort -n | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$2" '{print $c}' "$WORK/$1.times" | median; }
# htmlbytes DIR: bytes per page, the pages' index.html files (not the home page).
htmlbytes() { find "$1" -mindepth 2 -name index.html -printf '%s\n' | awk '{s += $1; n++} END {printf "%d\n", s / n}'; }
"$WORK/perflab" build --no-cache --content "$WORK/lab/content" --results "$WORK/lab/results" --out "$WORK/out-lab" 2>/dev/null

pc=$(col perflab-cold 1) pr=$(col perflab-rebuild 1) h=$(col hugo 1)
printf '%d pages, %d rounds, medians          wall s   cpu s   max RSS MB\n' "$PAGES" "$ROUNDS"
for n in perflab-cold perflab-rebuild hugo; do
	printf '  %-30s %7s %7s %9d\n' "$n" "$(col $n 1)" "$(col $n 2)" "$(($(col $n 3 | cut -d. -f1) / 1024))"
done
awk -v a="$pc" -v b="$h" 'BEGIN {printf "perflab cold / Hugo wall:          %.2f (target <= 0.50)\n", a / b}'
awk -v a="$pr" -v b="$pc" 'BEGIN {printf "perflab rebuild / cold wall:       %.2f (target <= 0.10), byte-identical\n", a / b}'
big=$(htmlbytes "$WORK/out-perflab") small=$(htmlbytes "$WORK/out-lab")
awk -v a="$big" -v b="$small" -v n="$PAGES" 'BEGIN {printf "bytes per page: %d at %d pages, %d at 28: %.2fx (target <= 1.25)\n", a, n, b, a / b}'
printf 'site size: perflab %s, Hugo %s\n' "$(du -sh "$WORK/out-perflab" | cut -f1)" "$(du -sh "$WORK/out-hugo" | cut -f1)"
