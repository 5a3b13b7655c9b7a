#!/usr/bin/env bash
# Adds Tesseract 5 (English) and poppler's pdftoppm, taken from this host's Debian packages, to a
# root filesystem staged for a FROM scratch image (the bills-tags service reads receipts with them),
# with util-linux's prlimit (which bounds their memory and CPU): the three binaries, every shared library they load with the dynamic loader, Tesseract's language
# data and poppler's data. No shell and no package manager go in. Like deploy/postgres-offline, it
# needs no registry.
#
# Usage: deploy/ocr/add-ocr.sh ROOTFS
set -euo pipefail

root="${1:?usage: add-ocr.sh ROOTFS}"
tesseract="$(command -v tesseract || true)"
pdftoppm="$(command -v pdftoppm || true)"
prlimit="$(command -v prlimit || true)"
if [[ -z "${prlimit}" ]]; then
	echo "prlimit (util-linux) is not installed on this host: apt-get install -y util-linux" >&2
	exit 1
fi
if [[ -z "${tesseract}" || -z "${pdftoppm}" ]]; then
	echo "Tesseract or pdftoppm is not installed on this host." >&2
	echo "Install them with: apt-get update && apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu poppler-utils" >&2
	exit 1
fi
tessdata="$(dirname "$(find /usr/share/tesseract-ocr -name eng.traineddata -print -quit)")"
if [[ -z "${tessdata}" || ! -f "${tessdata}/eng.traineddata" ]]; then
	echo "Tesseract's English data is missing: apt-get install -y tesseract-ocr-eng" >&2
	exit 1
fi

mkdir -p "${root}/usr/bin"
cp -L "${tesseract}" "${root}/usr/bin/tesseract"
cp -L "${pdftoppm}" "${root}/usr/bin/pdftoppm"
cp -L "${prlimit}" "${root}/usr/bin/prlimit"
mapfile -t libs < <(ldd "${tesseract}" "${pdftoppm}" "${prlimit}" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && NF > 1 { print $1 }' | sort -u)
for lib in "${libs[@]}"; do
	cp -L --parents "${lib}" "${root}"
done
# The language data (eng, osd, and deu when installed: German receipts are read again in English and
# German) and its configs, where the binary looks for them.
mkdir -p "${root}${tessdata}"
cp -a "${tessdata}/." "${root}${tessdata}/"
[[ -d /usr/share/poppler ]] && cp -a --parents /usr/share/poppler "${root}"
echo "added tesseract $("${tesseract}" --version 2>&1 | head -1 | awk '{print $2}'), pdftoppm and prlimit to ${root} (${#libs[@]} libraries)"
