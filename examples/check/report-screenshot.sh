#!/usr/bin/env bash
# Remakes examples/check/report.png, the golden-check guide's picture of `check --html`: a copy of this
# folder's manifest with two cases deliberately changed (the SMD walk's last frame moved, the
# sword case's head turned further), checked into a report and photographed by headless
# Chromium. SPRITEBAKE names the binary (default: target/debug/spritebake).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${SPRITEBAKE:-target/debug/spritebake}")
out="$PWD/examples/check/report.png"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/check examples/assets "$work/"
sed -i -e 's/^frame = \[0, 4.5, 9\]$/frame = [0, 4.5, 9.5]/' -e 's/head:yaw=40/head:yaw=55/' "$work/check/cases.toml"
# Relative paths, so the page's bless commands read as a user would type them.
(cd "$work" && "$bin" check check/cases.toml --allow-dir assets --html report) || test $? -eq 1
timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$work/profile" --screenshot="$out" --window-size=1200,800 \
    "file://$work/report/index.html#view=side" 2>/dev/null
echo "wrote $out"
