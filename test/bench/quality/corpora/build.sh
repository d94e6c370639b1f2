#!/bin/bash
# Build the labelled near-duplicate corpora from Debian bookworm (main), with one command:
#
#   test/bench/quality/corpora/build.sh [CACHE_DIR]        (default /work/cache/corpora)
#
# Everything comes from Debian's apt mirror through apt itself, with a private apt state under
# CACHE_DIR/apt (its own sources.list, lists and cache: the system's apt lists are not touched):
#   - apt-get update with Acquire::Languages=en,ko,ru,ja  -> Packages and Translation-{en,ko,ru,ja}
#   - apt-get download of the packages below, dpkg-deb -x into CACHE_DIR/root/<package>/
# then make_bases.py writes base TSVs (id, source, text) to CACHE_DIR/base/ and
# test/bench/gen_neardup.py (the project's generator; GEN=...) turns each into a labelled corpus in CACHE_DIR/labelled/.
# Steps whose output exists are skipped (delete the file, or REFRESH=1 to re-run apt-get update).
# Needs: apt, dpkg-deb, groff (groff-base), python3 (standard library only).  One core.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
C=${1:-/work/cache/corpora}
PY=${PYTHON:-/usr/bin/python3}
GEN=${GEN:-$HERE/../../gen_neardup.py}
SEED=${SEED:-1}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
mkdir -p "$C"/apt/lists/partial "$C"/apt/cache/archives/partial "$C"/apt/sources.list.d \
         "$C"/debs "$C"/root "$C"/base "$C"/labelled
C=$(cd "$C" && pwd)
command -v groff >/dev/null || { echo "groff is missing: apt-get install groff-base" >&2; exit 1; }
[ -f "$GEN" ] || { echo "generator $GEN not found (set GEN=...)" >&2; exit 1; }

# manual pages: tool families with shared boilerplate (GNU help2man, util-linux, OpenSSL, curl, git,
# LDAP, Postfix, MariaDB, sg3-utils, nvme-cli, debhelper ...) and identifier-heavy API pages
MAN_PKGS="manpages manpages-dev coreutils findutils diffutils grep sed gawk tar cpio gzip bash binutils
gdb wget sharutils m4 bison flex make patch time gettext gettext-base gnupg gpg gpgsm gpg-agent dirmngr
gpgv parted groff aspell datamash recutils units wdiff mtools texinfo indent util-linux mount fdisk
bsdutils bsdextrautils uuid-runtime util-linux-extra eject passwd login procps psmisc sysstat iproute2
iputils-ping iputils-tracepath net-tools ethtool nftables iptables conntrack ipset systemd
systemd-container udev libsystemd-dev libudev-dev e2fsprogs dosfstools xfsprogs btrfs-progs lvm2
dmsetup mdadm cryptsetup-bin nfs-common cifs-utils ntfs-3g f2fs-tools squashfs-tools dpkg dpkg-dev apt
apt-utils debhelper devscripts debconf debianutils dh-python reportbug adduser dput quilt openssl
libssl-doc curl libcurl4-doc git-man postgresql-client-15 libpq-dev libncurses-dev ncurses-bin perl-doc
tcl8.6-doc tk8.6-doc libx11-doc x11-xserver-utils x11-utils xauth libxt-dev libpam-doc libpam-modules
libpam-runtime libselinux1-dev selinux-utils libbsd-dev libpcap0.8-dev liburing-dev libzip-dev
libcap-dev libcap2-bin libacl1-dev libattr1-dev libaio-dev libkeyutils-dev libnuma-dev libpopt-dev
libedit-dev libreadline-dev libmagic-dev openmpi-doc erlang-manpages zsh-common dash fish-common
openssh-client openssh-server rsync nmap tcpdump bind9-dnsutils bind9-host dnsmasq-base socat
netcat-openbsd traceroute whois ldap-utils slapd libldap-dev samba-common-bin smbclient postfix
cups-client imagemagick-6.q16 ffmpeg vim-common nano less file procmail mailutils strace ltrace
valgrind lsof sudo cron at logrotate rsyslog openvpn wireguard-tools qemu-utils xz-utils bzip2 zstd
lz4 unzip zip sqlite3 mariadb-client mariadb-client-core krb5-user krb5-kdc krb5-admin-server
network-manager pulseaudio-utils lm-sensors smartmontools hdparm sdparm sg3-utils nvme-cli tmux screen
i2c-tools bluez ufw llvm-14 mercurial-common"
# HTML documentation: generated sites with shared headers, navigation and footers
HTML_PKGS="postgresql-doc-15 python3.11-doc libglib2.0-doc python-django-doc"

cat > "$C/apt/sources.list" <<EOF
deb $MIRROR bookworm main
EOF
: > "$C/apt/status"
APT=(-o "Dir::State::Lists=$C/apt/lists" -o "Dir::Cache=$C/apt/cache"
     -o "Dir::Etc::SourceList=$C/apt/sources.list" -o "Dir::Etc::SourceParts=$C/apt/sources.list.d"
     -o "Dir::State::status=$C/apt/status" -o Acquire::GzipIndexes=false
     -o Acquire::Languages=en,ko,ru,ja -o APT::Sandbox::User=root)
LISTS=$C/apt/lists

step() { echo "== $*" >&2; }

if [ "${REFRESH:-0}" = 1 ] || ! ls "$LISTS"/*_i18n_Translation-ja >/dev/null 2>&1; then
    step "apt-get update (bookworm main, Translation-en/ko/ru/ja) into $LISTS"
    apt-get "${APT[@]}" update >&2
fi
PACKAGES=$(ls "$LISTS"/*_main_binary-amd64_Packages | head -1)
grep -m1 '^Date:' "$LISTS"/*_bookworm_InRelease | sed 's/^/bookworm InRelease /' > "$C/SOURCES.txt"

step "apt-get download + dpkg-deb -x ($(echo $MAN_PKGS $HTML_PKGS | wc -w) packages) into $C/root"
missing=()
for p in $MAN_PKGS $HTML_PKGS; do
    ls "$C/debs/${p}"_*.deb >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then     # one apt-get call: each call re-reads all the lists
    (cd "$C/debs" && apt-get "${APT[@]}" download "${missing[@]}" >&2)
fi
for p in $MAN_PKGS $HTML_PKGS; do
    [ -d "$C/root/$p" ] && continue
    deb=$(ls "$C/debs/${p}"_*.deb | head -1)
    mkdir -p "$C/root/$p.tmp" && dpkg-deb -x "$deb" "$C/root/$p.tmp" && mv "$C/root/$p.tmp" "$C/root/$p"
done
ls "$C"/debs/*.deb | xargs -n1 basename > "$C/SOURCES.debs.txt"

# man and html roots: symlink farms of the package roots, one per corpus
mkdir -p "$C/roots-man" "$C/roots-html"
for p in $MAN_PKGS; do ln -sfn "$C/root/$p" "$C/roots-man/$p"; done
for p in $HTML_PKGS; do ln -sfn "$C/root/$p" "$C/roots-html/$p"; done

mk() {  # mk OUT args...: make_bases.py unless OUT exists
    local out=$1; shift
    [ -s "$out" ] && return 0
    step "make_bases.py $* -> $out"
    local cmd=$1; shift
    local args=() opts=()
    while [ $# -gt 0 ]; do
        case $1 in
            --fill) opts+=("$1"); shift;;
            --*) opts+=("$1" "$2"); shift 2;;
            *) args+=("$1"); shift;;
        esac
    done
    "$PY" "$HERE/make_bases.py" "$cmd" "${args[@]}" "$out.tmp.gz" "${opts[@]}" && mv "$out.tmp.gz" "$out"
}
# every rendered page / HTML file (exact copies removed), then two base sets from each:
#   man, html:         near-identical pages (nddup 3-shingle Jaccard >= 0.8) dropped, so pages that
#                      share boilerplate or a template (30-80 %) stay as distinct clusters (hard negatives)
#   man-d30, html-d30: Jaccard >= 0.3 dropped, gen_neardup.py's own rule (no hard negatives above 0.3)
mk "$C/base/man-all.tsv.gz"  man  "$C/roots-man"  --base-jaccard 1.01
mk "$C/base/html-all.tsv.gz" html "$C/roots-html" --base-jaccard 1.01
for x in man html; do
    mk "$C/base/$x.tsv.gz"     dedup "$C/base/$x-all.tsv.gz" --base-jaccard 0.8
    mk "$C/base/$x-d30.tsv.gz" dedup "$C/base/$x-all.tsv.gz" --base-jaccard 0.3
done
for l in ko ru ja; do mk "$C/base/$l.tsv.gz" lang "$l" "$LISTS"; done
# template families: descriptions linked by Jaccard >= 0.3, near-identical ones (>= 0.5) dropped
mk "$C/base/tmpl-ja.tsv.gz" tmpl ja "$LISTS" --max-docs 2000 --base-jaccard 0.5 --fill
mk "$C/base/tmpl-en.tsv.gz" tmpl en "$LISTS" --max-docs 4000 --base-jaccard 0.5
mk "$C/short.tsv.gz" short "$PACKAGES"

gen() {  # gen NAME DOCS [extra gen_neardup options]
    local name=$1 docs=$2; shift 2
    local out=$C/labelled/$name.tsv.gz
    [ -s "$out" ] && return 0
    step "gen_neardup.py base/$name.tsv.gz --docs $docs --seed $SEED $* -> labelled/$name.tsv.gz"
    "$PY" "$GEN" "$C/base/$name.tsv.gz" "$out.tmp.gz" --docs "$docs" --seed "$SEED" "$@" && mv "$out.tmp.gz" "$out"
}
gen man 8000 --base-jaccard 1.01
gen html 8000 --base-jaccard 1.01
gen man-d30 8000
gen html-d30 8000
gen ko 10000
gen ru 10000
gen ja 10000
gen tmpl-ja 10000 --base-jaccard 1.01
gen tmpl-en 10000 --base-jaccard 1.01

# stress corpora for df filtering (not from gen_neardup.py alone):
#   ko-site, ru-site: gen_neardup.py with site chrome repeated from a pool of 20 sites (gen_sitechrome.py)
#   ko-big, man-big:  ko / man plus 2 clusters each of 20, 50, 100 and 200 near-copies (make_bigclusters.py)
mkdir -p "$C/stress"
for l in ko ru; do
    out=$C/stress/$l-site.tsv.gz
    [ -s "$out" ] && continue
    step "gen_sitechrome.py base/$l.tsv.gz --docs 10000 --seed $SEED -> stress/$l-site.tsv.gz"
    "$PY" "$HERE/gen_sitechrome.py" "$C/base/$l.tsv.gz" "$out.tmp.gz" --docs 10000 --seed "$SEED" --gen "$GEN" && mv "$out.tmp.gz" "$out"
done
for x in ko man; do
    out=$C/stress/$x-big.tsv.gz
    [ -s "$out" ] && continue
    step "make_bigclusters.py labelled/$x.tsv.gz -> stress/$x-big.tsv.gz"
    "$PY" "$HERE/make_bigclusters.py" "$C/labelled/$x.tsv.gz" "$out.tmp.gz" --seed "$SEED" --gen "$GEN" && mv "$out.tmp.gz" "$out"
done

step "sizes"
for f in "$C"/base/*.tsv.gz "$C"/labelled/*.tsv.gz "$C"/stress/*.tsv.gz "$C"/short.tsv.gz; do
    printf '%-40s %8d rows %10d bytes\n' "${f#$C/}" $(( $(zcat "$f" | wc -l) - 1 )) "$(stat -c %s "$f")"
done | tee "$C/SIZES.txt"
