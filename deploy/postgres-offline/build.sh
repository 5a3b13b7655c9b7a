#!/usr/bin/env bash
# Builds the offline PostgreSQL image (default acct-postgres-offline:15) from the host's
# PostgreSQL 15 packages, without any registry: a root filesystem is assembled here
# and loaded with `docker import`. See README.md beside this file for why.
#
# Usage: deploy/postgres-offline/build.sh [IMAGE]   (run from the repository root)
set -euo pipefail

image="${1:-acct-postgres-offline:15}"
pg_major=15
pg_lib="/usr/lib/postgresql/${pg_major}"
pg_share="/usr/share/postgresql/${pg_major}"
# Fixed ids inside the image; the data directory belongs to this user.
pg_uid=999
pg_gid=999

if [[ ! -x "${pg_lib}/bin/postgres" || ! -d "${pg_share}" ]]; then
	echo "PostgreSQL ${pg_major} is not installed on this host (${pg_lib}/bin/postgres missing)." >&2
	echo "Install it with: apt-get update && apt-get install -y postgresql" >&2
	exit 1
fi
if ! docker info >/dev/null 2>&1; then
	echo "No Docker engine answers (docker info failed): cannot build ${image}." >&2
	exit 1
fi

root="$(mktemp -d)"
trap 'rm -rf "${root}"' EXIT

mkdir -p "${root}"/{bin,etc,tmp,usr/local/bin,usr/lib/postgresql,usr/share/postgresql,var/lib/postgresql/data,var/run/postgresql}
cp -a "${pg_lib}" "${root}/usr/lib/postgresql/"
# JIT compilation pulls in libLLVM (~100 MB); without the provider PostgreSQL simply runs
# with jit off, which is what a test database wants anyway.
rm -rf "${root}${pg_lib}/lib/llvmjit.so" "${root}${pg_lib}/lib/llvmjit_types.bc" "${root}${pg_lib}/lib/bitcode"
# Manual pages are the only part of the share directory the server never reads.
cp -a "${pg_share}" "${root}/usr/share/postgresql/"
rm -rf "${root}/usr/share/postgresql/${pg_major}/man"
# Debian builds PostgreSQL --with-system-tzdata.
cp -a /usr/share/zoneinfo "${root}/usr/share/"
# initdb starts the bootstrap backend through popen(), that is /bin/sh.
cp -L /bin/dash "${root}/bin/sh"

# Every shared library the binaries and loadable modules need, with the dynamic loader.
mapfile -t libs < <(
	{
		find "${root}${pg_lib}/bin" "${root}${pg_lib}/lib" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
			xargs -0 ldd 2>/dev/null
		ldd /bin/dash
	} | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && NF > 1 { print $1 }' | sort -u
)
for lib in "${libs[@]}"; do
	cp -L --parents "${lib}" "${root}"
done

cat >"${root}/etc/passwd" <<EOF
root:x:0:0:root:/root:/bin/sh
postgres:x:${pg_uid}:${pg_gid}:PostgreSQL administrator:/var/lib/postgresql:/bin/sh
EOF
cat >"${root}/etc/group" <<EOF
root:x:0:
postgres:x:${pg_gid}:
EOF
echo "hosts: files dns" >"${root}/etc/nsswitch.conf"

(cd e2e && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "${root}/usr/local/bin/docker-entrypoint" ./cmd/postgres-entrypoint)

chown -R "${pg_uid}:${pg_gid}" "${root}/var/lib/postgresql" "${root}/var/run/postgresql"
chmod 700 "${root}/var/lib/postgresql/data"
chmod 1777 "${root}/tmp"

tar --numeric-owner -C "${root}" -c . | docker import \
	--change "USER ${pg_uid}:${pg_gid}" \
	--change 'ENV PGDATA=/var/lib/postgresql/data' \
	--change "ENV PATH=${pg_lib}/bin:/usr/local/bin:/bin" \
	--change 'ENV LANG=C' \
	--change 'EXPOSE 5432' \
	--change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint"]' \
	--message "PostgreSQL ${pg_major} assembled from the host packages (deploy/postgres-offline)" \
	- "${image}" >/dev/null
echo "built ${image} ($(docker image inspect -f '{{.Size}}' "${image}" | awk '{printf "%.0f MB", $1/1e6}'))"
