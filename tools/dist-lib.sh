# Shared helpers of tools/install.sh and tools/package-deb.sh (source it; needs $root, the
# repository). Nothing here writes outside the directories it is given and $root/.build.

# The Maintainer of the .deb and the Upstream-Contact of the copyright file: one identity, checked
# in, so that every package names the same one. DEB_MAINTAINER overrides it (a fork's own
# packages). Not the last commit's author, as it used to be: that is whoever committed last, in
# this repository a placeholder identity at a reserved .example domain.
DIST_MAINTAINER="rangetap developers <rangetap@users.noreply.github.com>"

# shellcheck source=tools/release-build.sh
. "$root/tools/release-build.sh"

dist_log() { echo "$(basename "$0"): $*" >&2; }
dist_die() { dist_log "$*"; exit 1; }

# dist_release_build: the release build of the rangetap product with the Swift runtime linked in
# statically (--static-swift-stdlib), so the binary needs only Debian's libraries (libcurl, libstdc++,
# glibc) and not the toolchain's. Prints the binary's path.
dist_release_build() {
  dist_log "swift build -c release --product rangetap --static-swift-stdlib (several minutes)"
  local start=$SECONDS bin
  bin=$(release_build "$root") || dist_die "the release build failed"
  dist_log "release build took $((SECONDS - start)) s"
  echo "$bin"
}

# dist_strip SOURCE DESTINATION: a copy of the binary without its symbol table and debug
# sections (what an installed or packaged program carries; the build keeps its own for profiling).
dist_strip() {
  command -v strip >/dev/null 2>&1 || dist_die "strip is missing: apt-get install binutils"
  mkdir -p "$(dirname "$2")"
  strip --strip-all -o "$2" "$1" || dist_die "strip $1 failed"
}

# dist_debug_symbols BINARY DIR: BINARY's debug sections in a file of their own (objcopy
# --only-keep-debug, compressed) where gdb and eu-stack look for them by the binary's build ID:
# DIR/.build-id/NN/REST.debug (DIR is PREFIX/lib/debug; /usr/lib/debug is gdb's default). Prints
# the file's path.
dist_debug_symbols() {
  command -v objcopy >/dev/null 2>&1 || dist_die "objcopy is missing: apt-get install binutils"
  local id
  id=$(readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | head -n 1)
  [ ${#id} -gt 2 ] || dist_die "$1 has no build ID: its debug symbols could not be found by it"
  local file="$2/.build-id/${id:0:2}/${id:2}.debug"
  mkdir -p "$(dirname "$file")"
  objcopy --only-keep-debug --compress-debug-sections=zlib "$1" "$file" || dist_die "objcopy $1 failed"
  chmod 644 "$file"
  echo "$file"
}

# dist_manual_tool: swift-argument-parser's own man page generator (Tools/generate-manual in the
# checkout of the dependency, the tool its `generate-manual` command plugin runs), built once in
# its own scratch directory so that it never waits for, nor invalidates, the package's builds
# (a running `swift test` holds the lock of .build). Prints the tool's path.
dist_manual_tool() {
  local parser="$root/.build/checkouts/swift-argument-parser" scratch="$root/.build/manual-tool"
  if [ ! -f "$parser/Package.swift" ]; then
    (cd "$root" && swift package resolve >&2) || dist_die "swift package resolve failed"
  fi
  [ -f "$parser/Package.swift" ] || dist_die "no swift-argument-parser checkout in $parser"
  # tools/test.sh builds the tool into the package's own build directory right after the package
  # (6 s there, its ArgumentParser already built; about 40 s alone in a scratch directory).
  if [ -x "$root/.build/debug/generate-manual" ]; then
    echo "$root/.build/debug/generate-manual"
    return
  fi
  local tool="$scratch/debug/generate-manual"
  if [ ! -x "$tool" ]; then
    dist_log "building swift-argument-parser's generate-manual (once, in $scratch)"
    local start=$SECONDS
    swift build --package-path "$parser" --scratch-path "$scratch" --product generate-manual >&2 \
      || dist_die "building generate-manual failed"
    dist_log "generate-manual built in $((SECONDS - start)) s"
  fi
  echo "$tool"
}

# dist_man_pages BINARY DIR: one man page per command (rangetap.1, rangetap-record.1,
# rangetap-ca-init.1, …, rangetap-help.1) generated from BINARY's own help (--experimental-dump-help), dated by the
# last commit so that the same sources give the same pages.
dist_man_pages() {
  local binary=$1 dir=$2 tool date
  tool=$(dist_manual_tool)
  date=$(git -C "$root" log -1 --format=%cs 2>/dev/null || date -u +%F)
  mkdir -p "$dir"
  local raw="$dir/.generated"
  rm -rf "$raw"; mkdir -p "$raw"
  "$tool" "$binary" --multi-page --date "$date" --output-directory "$raw" >&2 \
    || dist_die "generate-manual failed on $binary"
  # generate-manual names a subcommand's page rangetap.ca.init.1; man's convention (git-commit.1)
  # is rangetap-ca-init.1, in the file name, the title (.Dt) and the cross-references (.Xr).
  local page name
  for page in "$raw"/*.1; do
    name=$(basename "$page"); name="${name%.1}"
    # The generic ".Ex -std" (0 on success, >0 on error) gives way to rangetap's convention; each
    # command's own statuses are in its DESCRIPTION ("Exit status: …").
    perl -pe 's{^(\.Dt |\.Xr )(\S+)}{$1 . ($2 =~ tr/./-/r)}e;
      s{^\.Ex -std$}{0 when the command did its work; 1 when it ran but found what it checks for (a failed probe check, a replay that is not byte-exact, differing captures, a finding at --fail-on) or lost recorded data; 2 on bad arguments or input, or when it could not start its work. The DESCRIPTION above says which apply.}' \
      "$page" > "$dir/${name//./-}.1"
  done
  rm -rf "$raw"
  [ -f "$dir/rangetap.1" ] && [ -f "$dir/rangetap-record.1" ] || dist_die "generate-manual wrote no rangetap-record.1 in $dir"
}

# dist_completion BINARY SHELL FILE: the completion script argument-parser generates for SHELL.
dist_completion() {
  local binary=$1 shell=$2 file=$3
  mkdir -p "$(dirname "$file")"
  "$binary" --generate-completion-script "$shell" > "$file" || dist_die "$binary --generate-completion-script $shell failed"
  [ -s "$file" ] || dist_die "$binary printed an empty $shell completion script"
}

# dist_maintainer: "Name <address>" for the Maintainer field, DEB_MAINTAINER else DIST_MAINTAINER.
# An address at a domain reserved for examples and tests (RFC 2606, RFC 6761: .example, .invalid,
# .test, localhost, example.com/.net/.org) is refused: nobody reads mail there, and a package must
# name someone who does.
dist_maintainer() {
  local maintainer=${DEB_MAINTAINER:-$DIST_MAINTAINER} domain
  [[ $maintainer =~ ^[^\<\>]*[^\<\>\ ]\ \<([^\<\>\ @]+)@([^\<\>\ @]+)\>$ ]] \
    || dist_die "maintainer '$maintainer' is not 'Name <user@domain>' (DEB_MAINTAINER, else DIST_MAINTAINER in tools/dist-lib.sh)"
  domain=${BASH_REMATCH[2],,}; domain=${domain%.}
  case $domain in
    *.example|example|*.invalid|invalid|*.test|test|*localhost|example.com|*.example.com|example.net|*.example.net|example.org|*.example.org)
      dist_die "maintainer '$maintainer': $domain is a reserved domain nobody receives mail at; set DEB_MAINTAINER to a real address" ;;
  esac
  echo "$maintainer"
}

# dist_share_files: the files the README's examples use besides the binary, one "MODE TAB SOURCE
# TAB NAME" line each, NAME relative to rangetap's data directory (/usr/share/rangetap in the .deb,
# PREFIX/share/rangetap from install.sh): the shaping traces (`record --shape-trace`) and the
# example external cache (`replay --cache-cmd "python3 …/cache-adapter-example.py"`, run by
# python3, so not executable).
dist_share_files() {
  local trace found=0
  for trace in "$root"/tools/traces/*.trace; do
    [ -f "$trace" ] || continue
    printf '644\t%s\ttraces/%s\n' "$trace" "$(basename "$trace")"; found=1
  done
  [ "$found" = 1 ] || dist_die "no shaping traces in $root/tools/traces"
  [ -f "$root/tools/cache-adapter-example.py" ] || dist_die "$root/tools/cache-adapter-example.py is missing"
  printf '644\t%s\tcache-adapter-example.py\n' "$root/tools/cache-adapter-example.py"
}

# --- the copyright file -------------------------------------------------------------------------
# /usr/bin/rangetap is one executable with its Swift dependencies, the C code they vendor
# (llhttp) and the Swift runtime and Foundation linked in, so its copyright file has to
# give each of their notices and licence texts (Debian policy 12.5; the Apache License's section
# 4 for the NOTICE files). It is generated from the sources themselves whenever rangetap is packaged
# or installed, so that it follows Package.resolved rather than a hand-kept list.

# dist_dep5_body: stdin as the continuation lines of a field of a machine-readable copyright file
# (copyright-format 1.0): every line indented by one space, an empty line written " .", trailing
# blanks and leading and trailing empty lines dropped.
dist_dep5_body() {
  perl -e 'local $/; my $t = <STDIN>; $t = "" unless defined $t; $t =~ s/\r//g; $t =~ s/[ \t]+$//mg;
    $t =~ s/\A\n+//; $t =~ s/\n+\z//; exit 0 unless length $t;
    print map { $_ eq "" ? " .\n" : " $_\n" } split /\n/, $t, -1;'
}

# dist_copyright_holders FILTER: the copyright statements in the first 40 lines of the files
# named on stdin (NUL-separated), only of files whose first 40 lines match the Perl regex FILTER
# (when not empty): "YEARS HOLDER" once per holder, years merged into first-last as the format
# allows, the most frequent holder first; a statement without a year (or with a form this does not
# parse) is kept as written.
dist_copyright_holders() {
  FILTER=$1 perl -e '
    my $filter = $ENV{FILTER}; my (%span, %count, %plain, %later);
    local $/ = "\0";
    while (my $name = <STDIN>) {
      chomp $name;
      open(my $fh, "<", $name) or next;
      my @head;
      { local $/ = "\n"; while (my $line = <$fh>) { push @head, $line; last if @head >= 40 } }
      close $fh;
      next if length $filter && join("", @head) !~ /$filter/;
      for (my $i = 0; $i < @head; $i++) {
        my $line = $head[$i];
        $line =~ s{^\s*(?://+|/?\*+|#+|;+)?\s*}{}; $line =~ s/\s+\*+$//; $line =~ s/\s+$//; $line =~ s/\s+/ /g;
        next unless $line =~ /^(?:Portions )?(?:Copyright\b|\xc2\xa9)/;
        if ($line =~ /\band$/ && $i + 1 < @head) {   # "... Corporation and" / "others." on the next line
          (my $next = $head[$i + 1]) =~ s{^\s*(?://+|/?\*+|#+|;+)?\s*}{}; $next =~ s/\s+\*+$//; $next =~ s/\s+$//;
          $line .= " $next" if length $next;
        }
        if ($line =~ /^(?:Portions )?Copyright (?:\([cC]\) ?|\xc2\xa9 ?)?((?:\d{4}(?: ?- ?\d{4})?)(?: ?, ?\d{4}(?: ?- ?\d{4})?)*),? (.+)$/
            && $2 !~ /^(?:\d|and \d)/) {
          my ($years, $holder) = ($1, $2);
          # ICU headers wrap "International Business Machines" / "Corporation and others."
          $holder = "International Business Machines Corporation and others"
            if $holder =~ /^International Business Machines\b/;
          my $span = $span{$holder} ||= [9999, 0];
          for my $year ($years =~ /(\d{4})/g) {
            $span->[0] = $year if $year < $span->[0]; $span->[1] = $year if $year > $span->[1];
          }
          $count{$holder}++;
        } else {
          $line =~ s/^(?:Portions )?(?:Copyright ?(?:\([cC]\)|\xc2\xa9)?|\xc2\xa9) ?//;
          next if $line =~ /^(?:YEARS?|YYYY|\[yyyy\])\b/i;      # a template placeholder
          if ($line =~ /^(\d{4}) and later: (.+)$/) {             # ICU: "2016 and later: Unicode, Inc. and others."
            $later{$2} = $1 if !defined $later{$2} || $1 < $later{$2}; $count{"later $2"}++; next;
          }
          $plain{$line}++;
        }
      }
    }
    my @lines = map { [ ($span{$_}[0] == $span{$_}[1] ? $span{$_}[0] : "$span{$_}[0]-$span{$_}[1]") . " $_", $count{$_} ] } keys %span;
    push @lines, map { [ "$later{$_} and later: $_", $count{"later $_"} ] } keys %later;
    push @lines, map { [ $_, $plain{$_} ] } keys %plain;
    print "$_->[0]\n" for sort { $b->[1] <=> $a->[1] || $a->[0] cmp $b->[0] } @lines;'
}

# dist_same_text A B: whether two licence texts are the same but for white space (the checkouts
# indent the Apache License by three spaces or four).
dist_same_text() {
  perl -e 'sub norm { open(my $fh, "<", $_[0]) or exit 2; local $/; my $t = <$fh>; $t =~ s/\s+/ /g; $t =~ s/^ | $//g; $t }
    exit(norm($ARGV[0]) eq norm($ARGV[1]) ? 0 : 1)' "$1" "$2"
}

# dist_licence_name FILE: the copyright-format short name of the licence in FILE, or nothing when
# it is none that dist_copyright knows (Apache-2.0, Apache-2.0 with the Swift project's Runtime
# Library Exception, SPDX "Swift-exception", or Expat, the MIT licence's usual text).
dist_licence_name() {
  if grep -q 'Apache License' "$1" && grep -q 'Version 2\.0' "$1"; then
    if grep -q 'Runtime Library Exception' "$1"; then echo "Apache-2.0 with Swift exception"; else echo "Apache-2.0"; fi
  elif grep -q 'Permission is hereby granted, free of charge' "$1"; then
    echo "Expat"
  fi
}


# What marks a source file as under the Apache License 2.0 (Swift's "Licensed under Apache
# License v2.0", "Licensed under the Apache License, Version 2.0", SPDX lines).
DIST_APACHE_HEADER='Licensed under (?:the )?Apache License|SPDX-License-Identifier:\s*Apache-2\.0'

# dist_pins RESOLVED: the pins of a Package.resolved, one "identity TAB location TAB version (or
# branch) TAB revision" line each.
dist_pins() {
  perl -0777 -ne 'for my $pin (split /"identity"\s*:\s*/) {
      next unless $pin =~ /^"([^"]+)"/; my $id = $1; my %f;
      $f{$1} = $2 while $pin =~ /"(location|version|branch|revision)"\s*:\s*"([^"]*)"/g;
      print join("\t", $id, map { defined $_ ? $_ : "" } $f{location}, $f{version} // $f{branch}, $f{revision}), "\n" }' "$1"
}

# dist_checkout_of ID: the checkout of package ID in .build/checkouts, or nothing (SwiftPM names it
# after the repository; the identity is that name in lower case).
dist_checkout_of() {
  find "$root/.build/checkouts" -mindepth 1 -maxdepth 1 -type d -iname "$1" -print -quit 2>/dev/null || true
}

# dist_dep5_copyright HOLDERS: a Copyright field, one statement of HOLDERS a line.
dist_dep5_copyright() {
  echo "Copyright: $(head -1 <<<"$1")"
  tail -n +2 <<<"$1" | dist_dep5_body
}

# dist_dep5_comment: a Comment field, its text on stdin.
dist_dep5_comment() {
  echo "Comment:"
  dist_dep5_body
}

# dist_package_holders CHECKOUT: the copyright statements of a package: those in the headers of its
# Apache-licensed sources (vendored code under other terms says so in its own headers and has a
# paragraph of its own) and those of its NOTICE.txt.
dist_package_holders() {
  local co=$1 top="$1/Sources" holders notice=""
  [ -d "$top" ] || top=$co
  holders=$(find "$top" -type f \
    \( -name '*.swift' -o -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' -o -name '*.S' \) -print0 \
    | dist_copyright_holders "$DIST_APACHE_HEADER")
  if [ -f "$co/NOTICE.txt" ]; then
    notice=$(printf '%s\0' "$co/NOTICE.txt" | dist_copyright_holders '')
  fi
  printf '%s\n%s\n' "$holders" "$notice" | awk 'NF && !seen[$0]++'
}

# dist_copyright_package ID LOCATION VERSION REVISION CHECKOUT: the Files paragraph of one pinned
# package, then those of the code it vendors. Records the licences it names in the caller's
# `used` and their texts in `reference`.
dist_copyright_package() {
  local id=$1 location=$2 version=$3 revision=$4 co=$5 name licence="" candidate short holders
  name=$(basename "$co")
  for candidate in LICENSE.txt LICENSE LICENSE.md COPYING; do
    if [ -f "$co/$candidate" ]; then licence="$co/$candidate"; break; fi
  done
  [ -n "$licence" ] || dist_die "no LICENSE.txt (nor LICENSE, LICENSE.md, COPYING) in $co: cannot give $id's licence"
  short=$(dist_licence_name "$licence")
  [ -n "$short" ] || dist_die "$licence is a licence dist_copyright does not know: read it, and extend dist_licence_name in tools/dist-lib.sh"
  if [ -z "${reference[$short]:-}" ]; then reference[$short]=$licence; fi
  used[$short]=1
  holders=$(dist_package_holders "$co")
  [ -n "$holders" ] || holders="the $name authors (the checkout's source headers state no copyright holder)"
  echo
  echo "Files: .build/checkouts/$name/*"
  dist_dep5_copyright "$holders"
  echo "License: $short"
  if ! dist_same_text "$licence" "${reference[$short]}"; then
    # Not the reference text but for white space: this package's own text, here.
    dist_log "note: ${licence#"$root"/} differs from ${reference[$short]#"$root"/}: its text goes in its own paragraph"
    dist_dep5_body < "$licence"
  fi
  {
    echo "$id ${version:-(no version)}, $location${revision:+ at revision $revision}; its licence is its ${licence#"$co"/}."
    if [ -f "$co/NOTICE.txt" ]; then
      printf '\nIts NOTICE.txt:\n\n'
      sed '/./,$!d' "$co/NOTICE.txt"
    fi
  } | dist_dep5_comment
  if [ -f "$co/Sources/CNIOLLHTTP/LICENSE" ]; then dist_copyright_llhttp "$id" "$co"; fi
}

# dist_copyright_llhttp ID CHECKOUT: llhttp, vendored by swift-nio in Sources/CNIOLLHTTP with its
# own LICENSE (the MIT licence's Expat text), and cpp_magic.h in Sources/CNIOAtomics, whose header
# says only "LICENSE: MIT" and where it comes from: uSHET, whose LICENSE file is the Expat text with
# "Copyright (c) 2014 Thomas Nixon".
dist_copyright_llhttp() {
  local id=$1 co=$2 name licence="$2/Sources/CNIOLLHTTP/LICENSE" holders magic
  name=$(basename "$co")
  [ "$(dist_licence_name "$licence")" = "Expat" ] || dist_die "$licence is no longer the MIT licence: read it, and extend dist_copyright"
  # The reference Expat text: the licence from its permission grant on, without the lines that
  # name this package and its holder.
  sed -n '/^Permission is hereby granted/,$p' "$licence" > "$work/expat"
  if [ -z "${reference[Expat]:-}" ]; then reference[Expat]="$work/expat"; origin[Expat]=$licence; fi
  used[Expat]=1
  holders=$(grep -E '^Copyright' "$licence" | sed -E 's/^Copyright( \([cC]\))? *//' || true)
  echo
  echo "Files: .build/checkouts/$name/Sources/CNIOLLHTTP/*"
  dist_dep5_copyright "${holders:-the llhttp authors}"
  echo "License: Expat"
  echo "llhttp (https://github.com/nodejs/llhttp), vendored by $id in Sources/CNIOLLHTTP; its licence is Sources/CNIOLLHTTP/LICENSE." \
    | dist_dep5_comment
  magic="$co/Sources/CNIOAtomics/src/cpp_magic.h"
  if [ -f "$magic" ]; then
    head -10 "$magic" | grep -q 'LICENSE: MIT' \
      || dist_die "$magic no longer says 'LICENSE: MIT': read its header, and update dist_copyright_llhttp"
    echo
    echo "Files: .build/checkouts/$name/Sources/CNIOAtomics/src/cpp_magic.h"
    echo "Copyright: 2014 Thomas Nixon"
    echo "License: Expat"
    {
      echo "From uSHET, vendored by $id. The file's header says:"
      echo
      head -10 "$magic" | sed -n 's#^// *\(.*\(LICENSE\|https\?:\).*\)$#  \1#p'
      echo
      echo "uSHET's LICENSE file (https://github.com/18sg/uSHET) is the Expat text below with"
      echo "\"Copyright (c) 2014 Thomas Nixon\"; $id's NOTICE.txt credits Thomas Nixon and Jonathan Heathcote."
    } | dist_dep5_comment
  fi
}

# dist_copyright_toolchain TOOLCHAIN: the Swift runtime and Foundation that --static-swift-stdlib
# links in, from the toolchain whose usr directory is TOOLCHAIN (nothing: no swift on PATH): the
# runtime, Concurrency, Foundation and CoreFoundation under the Apache License 2.0 with the Runtime
# Library Exception (the toolchain's LICENSE.txt), libdispatch under the Apache License 2.0 (its
# headers), ICU under Unicode's terms (its headers).
dist_copyright_toolchain() {
  local toolchain=$1 lib holders version licence="" candidate
  local files="swift-toolchain/usr/lib/swift_static/linux/* swift-toolchain/usr/lib/swift/linux/*"
  local where="statically linked into /usr/bin/rangetap by swift build --static-swift-stdlib (a package made from a build that loads them as shared libraries ships those in /usr/lib/rangetap)"
  local exception="Apache-2.0 with Swift exception"
  used[$exception]=1
  if [ -z "$toolchain" ]; then
    [ -n "${reference[$exception]:-}" ] \
      || dist_die "no swift on PATH, and no package has the text of Swift's licence (the Apache License 2.0 with the Runtime Library Exception)"
    echo
    echo "Files: $files"
    echo "Copyright: Apple Inc. and the Swift project authors"
    echo "License: $exception"
    {
      echo "The Swift runtime and Foundation of the Swift toolchain, $where."
      echo "No swift was on PATH when this file was made, so the toolchain's other parts (its libdispatch,"
      echo "its ICU) are not itemised. Swift's licence is https://swift.org/LICENSE.txt: the Apache License 2.0"
      echo "with the Runtime Library Exception, whose text is given below."
    } | dist_dep5_comment
    return 0
  fi
  lib="$toolchain/lib/swift"
  version=$(swift --version 2>/dev/null | head -1 || true)
  while read -r candidate; do
    if [ -f "$candidate" ] && [ "$(dist_licence_name "$candidate")" = "$exception" ]; then licence=$candidate; break; fi
  done < <(echo "$toolchain/share/swift/LICENSE.txt"; find "$toolchain/share" -maxdepth 3 -type f -iname 'LICENSE*' 2>/dev/null | sort)
  if [ -n "$licence" ]; then
    reference[$exception]=$licence
  else
    [ -n "${reference[$exception]:-}" ] \
      || dist_die "the Swift toolchain in $toolchain has no licence file, and no package has the text of Swift's licence (the Apache License 2.0 with the Runtime Library Exception)"
  fi
  holders=$( (find "$lib/shims" "$lib/CoreFoundation" "$lib/_FoundationCShims" "$lib/Block" -type f -print0 2>/dev/null || true) \
    | dist_copyright_holders 'Runtime Library Exception')
  echo
  echo "Files: $files"
  dist_dep5_copyright "${holders:-Apple Inc. and the Swift project authors}"
  echo "License: $exception"
  {
    echo "The Swift standard library and runtime, Swift Concurrency, Foundation and the toolchain's"
    echo "other runtime libraries, $where."
    echo "swift-toolchain is $(dirname "$toolchain")${version:+, $version}."
    if [ -n "$licence" ]; then
      echo "The licence text below is the toolchain's ${licence#"$(dirname "$toolchain")"/}."
    else
      echo "The toolchain carries no copy of its licence, https://swift.org/LICENSE.txt: the Apache"
      echo "License 2.0 with the Runtime Library Exception, whose text is given below."
    fi
  } | dist_dep5_comment

  # libdispatch: its headers carry the Apache License 2.0, without the exception.
  if [ -d "$lib/dispatch" ]; then
    holders=$(find "$lib/dispatch" -type f -print0 | dist_copyright_holders 'Licensed under the Apache License')
    if [ -n "$holders" ]; then
      used["Apache-2.0"]=1
      echo
      echo "Files: swift-toolchain/usr/lib/swift_static/linux/libdispatch.a swift-toolchain/usr/lib/swift/linux/libdispatch.so"
      dist_dep5_copyright "$holders"
      echo "License: Apache-2.0"
      echo "libdispatch, $where. Its headers in the toolchain (usr/lib/swift/dispatch) carry the Apache License 2.0 header." \
        | dist_dep5_comment
    fi
  fi

  # ICU, which Foundation's internationalization links (lib_FoundationICU). Its headers refer to
  # Unicode's terms of use; unless the toolchain has a copy of that licence, the License paragraph
  # says so rather than give a text from elsewhere.
  local icu="$lib/_foundation_unicode" icu_version terms icu_licence
  if [ -d "$icu" ]; then
    holders=$(find "$icu" -type f -print0 | dist_copyright_holders '')
    icu_version=$(sed -n 's/^#define U_ICU_VERSION "\(.*\)"$/\1/p' "$icu/uvernum.h" 2>/dev/null | head -1 || true)
    terms=$( (grep -rhE '^\s*(//+|/?\*+)\s*License & terms of use' "$icu" || true) | sed -E 's@^\s*(//+|/?\*+)?\s*@@; s/\s+$//' | sort -u)
    icu_licence=$( (find "$toolchain" -maxdepth 6 -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' \) -print0 2>/dev/null \
      | xargs -0 -r grep -l 'UNICODE LICENSE\|UNICODE, INC. LICENSE' 2>/dev/null || true) | head -1)
    used["Unicode-ICU"]=1
    if [ -n "$icu_licence" ]; then
      reference["Unicode-ICU"]=$icu_licence
    else
      {
        echo "The licence of ICU${icu_version:+ $icu_version}, which the headers of the toolchain's copy"
        echo "(usr/lib/swift/_foundation_unicode) name as:"
        echo
        sed 's/^/  /' <<<"${terms:-(no reference found)}"
        echo
        echo "The Swift toolchain carries no copy of that licence's text."
      } > "$work/unicode-icu"
      reference["Unicode-ICU"]="$work/unicode-icu"
    fi
    echo
    echo "Files: swift-toolchain/usr/lib/swift_static/linux/lib_FoundationICU.a swift-toolchain/usr/lib/swift/linux/lib_FoundationICU.so"
    dist_dep5_copyright "${holders:-Unicode, Inc. and others}"
    echo "License: Unicode-ICU"
    echo "ICU${icu_version:+ $icu_version} as the Swift toolchain builds it for Foundation (lib_FoundationICU), $where." \
      | dist_dep5_comment
  fi
}

# dist_source_name PATH: PATH as the copyright file names it: relative to the repository, or under
# swift-toolchain/ (the toolchain's directory, $toolchain in dist_copyright).
dist_source_name() {
  case $1 in
    "$root"/*) echo "${1#"$root"/}" ;;
    "${toolchain:-/nonexistent}"/*) echo "swift-toolchain/usr/${1#"$toolchain"/}" ;;
    *) echo "$1" ;;
  esac
}

# dist_copyright FILE: writes the machine-readable copyright file (copyright-format 1.0) of the
# rangetap binary: rangetap itself (Files: *, the repository's LICENSE); every package pinned in
# Package.resolved, from its checkout in .build/checkouts (its licence, its NOTICE.txt, the copyright
# lines of its source headers) with the C code it vendors under other terms or holders (llhttp and
# cpp_magic.h in swift-nio); the Swift runtime, Foundation, libdispatch
# and ICU from the toolchain of the swift on PATH; then one License paragraph with the full text of
# each licence named. Runs `swift package resolve` when a checkout is missing, and fails when one
# still is, or when a package's licence is none it knows: a dependency under another licence needs
# a person to read it, not a guess.
dist_copyright() {
  local file=$1 resolved="$root/Package.resolved" work="$1.parts"
  local id location version revision co missing=() years maintainer swift toolchain="" short
  declare -A reference=() origin=() used=()
  rm -rf "$work"; mkdir -p "$work"
  [ -f "$resolved" ] || dist_die "no $resolved: the copyright file lists the packages pinned there"
  dist_pins "$resolved" > "$work/pins" || dist_die "cannot read the pins of $resolved"
  [ -s "$work/pins" ] || dist_die "$resolved pins no package"
  while IFS=$'\t' read -r id location version revision; do
    if [ -z "$(dist_checkout_of "$id")" ]; then missing+=("$id"); fi
  done < "$work/pins"
  if [ ${#missing[@]} -gt 0 ]; then
    dist_log "no checkout of ${missing[*]} in $root/.build/checkouts (the copyright file is made from them): swift package resolve"
    (cd "$root" && swift package resolve >&2) || dist_die "swift package resolve failed"
    missing=()
    while IFS=$'\t' read -r id location version revision; do
      if [ -z "$(dist_checkout_of "$id")" ]; then missing+=("$id"); fi
    done < "$work/pins"
    [ ${#missing[@]} -eq 0 ] \
      || dist_die "no checkout of ${missing[*]} in $root/.build/checkouts even after swift package resolve: cannot give their licences"
  fi
  [ "$(dist_licence_name "$root/LICENSE")" = "Apache-2.0" ] || dist_die "$root/LICENSE is not the Apache License 2.0"
  reference["Apache-2.0"]="$root/LICENSE"
  used["Apache-2.0"]=1
  if swift=$(command -v swift 2>/dev/null); then
    toolchain=$(dirname "$(dirname "$(readlink -f "$swift")")")
  else
    dist_log "note: no swift on PATH: the copyright file cites https://swift.org/LICENSE.txt for the Swift runtime"
  fi
  maintainer=$(dist_maintainer) || exit 1
  # The years of rangetap's own history, for its Copyright line.
  years=$( (git -C "$root" log --format=%cs 2>/dev/null || true) | cut -c1-4 | sort -u | sed -n '1p;$p' | uniq | paste -sd- -)

  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: rangetap"
    echo "Upstream-Contact: $maintainer"
    dist_dep5_comment <<TEXT
Generated by tools/dist-lib.sh (dist_copyright) when rangetap is packaged or installed.
/usr/bin/rangetap is one executable: rangetap's own code (Files: *) and, linked in statically,
those of the Swift packages pinned in Package.resolved that it uses (Files: .build/checkouts/NAME/*,
with the C code they vendor) and the Swift runtime and Foundation of the Swift toolchain
(swift build --static-swift-stdlib; Files: swift-toolchain/..., the toolchain's directory).
The Files patterns name those sources, relative to rangetap's repository.
TEXT
    echo
    echo "Files: *"
    echo "Copyright: ${years:+$years }the rangetap authors"
    echo "License: Apache-2.0"
    echo "Comment: rangetap's licence is the LICENSE file of its repository."
  } > "$work/head"
  : > "$work/packages"
  while IFS=$'\t' read -r id location version revision; do
    co=$(dist_checkout_of "$id")
    dist_copyright_package "$id" "$location" "$version" "$revision" "$co" >> "$work/packages"
  done < "$work/pins"
  dist_copyright_toolchain "$toolchain" > "$work/toolchain"
  # The full texts, one License paragraph per short name used above.
  : > "$work/licences"
  for short in "Apache-2.0" "Apache-2.0 with Swift exception" "Expat" "Unicode-ICU"; do
    [ -n "${used[$short]:-}" ] || continue
    [ -n "${reference[$short]:-}" ] || dist_die "no text of the licence $short for the copyright file"
    {
      echo
      echo "License: $short"
      dist_dep5_body < "${reference[$short]}"
      case $short in
        "Apache-2.0 with Swift exception")
          echo "The Apache License 2.0 with the Runtime Library Exception of the Swift project (SPDX: Apache-2.0 WITH Swift-exception); the text is $(dist_source_name "${reference[$short]}")." \
            | dist_dep5_comment ;;
        *)
          if [ -n "${origin[$short]:-}" ]; then
            echo "Comment: the text is that of $(dist_source_name "${origin[$short]}") from its permission notice on."
          elif [[ ${reference[$short]} != "$work"/* ]]; then
            echo "Comment: the text is $(dist_source_name "${reference[$short]}")."
          fi ;;
      esac
    } >> "$work/licences"
  done
  for short in "${!used[@]}"; do
    case $short in "Apache-2.0"|"Apache-2.0 with Swift exception"|"Expat"|"Unicode-ICU") ;;
      *) dist_die "dist_copyright names the licence $short but has no License paragraph for it" ;; esac
  done
  mkdir -p "$(dirname "$file")"
  cat "$work/head" "$work/packages" "$work/toolchain" "$work/licences" > "$file" || dist_die "cannot write $file"
  rm -rf "$work"
}
