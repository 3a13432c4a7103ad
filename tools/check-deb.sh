#!/usr/bin/env bash
# Builds the Debian package (cpack -G DEB in build/) and checks that it installs cleanly next to
# Debian's own packages: no file in it is owned by an installed package (dpkg -S), every Depends is
# satisfied, and `dpkg -i --dry-run` accepts it. Changes nothing on the system.
#
#   cmake --build build && bash tools/check-deb.sh
set -euo pipefail
cd "$(dirname "$0")/../build"
start=$(date +%s)
rm -rf aftershock_*.deb _CPack_Packages
cpack -G DEB >/dev/null
deb=$(ls aftershock_*.deb)
echo "check-deb: built $deb ($(du -h "$deb" | cut -f1)) in $(( $(date +%s) - start )) s"

status=0
files=0
while read -r path; do
  files=$((files + 1))
  if owner=$(dpkg -S "$path" 2>/dev/null); then
    echo "check-deb: $path is already owned: $owner"
    status=1
  fi
done < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|')
echo "check-deb: $files files, none owned by another package$([[ $status == 0 ]] || echo ' -- NO')"
echo "check-deb: Depends: $(dpkg-deb -f "$deb" Depends)"
if [[ $(id -u) -eq 0 ]]; then
  dpkg -i --dry-run "$deb" || { echo "check-deb: dpkg -i --dry-run refused $deb"; status=1; }
else
  echo "check-deb: not root, skipping dpkg -i --dry-run"
fi
rm -rf _CPack_Packages  # the staged tree (~470 MB); the .deb stays
exit $status
