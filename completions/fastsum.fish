complete -c fastsum -s a -l algorithm -d 'Algorithm, default md5; a list is read once: md5,sha1' -r -f -a "md5\t'MD5 (RFC 1321), 128 bits: the default, as md5sum'
sha1\t'SHA-1 (FIPS 180-4), 160 bits, as sha1sum'
sha224\t'SHA-224 (FIPS 180-4), as sha224sum'
sha256\t'SHA-256 (FIPS 180-4), as sha256sum'
sha384\t'SHA-384 (FIPS 180-4), as sha384sum'
sha512\t'SHA-512 (FIPS 180-4), as sha512sum'
blake3\t'BLAKE3, 256 bits of output, as b3sum'
blake2b\t'BLAKE2b (RFC 7693), 512 bits or -l BITS, as b2sum'
sm3\t'SM3 (GB/T 32905), 256 bits, as cksum -a sm3'
sha3\t'SHA-3 (FIPS 202), -l 224, 256, 384 or 512, as cksum -a sha3'
crc32b\t'CRC-32 of zlib (ISO-HDLC) and the size, as cksum -a crc32b'
xxh32\t'XXH32, as xxhsum -H0 (not cryptographic)'
xxh64\t'XXH64, as xxhsum -H1 (not cryptographic)'
xxh3\t'XXH3, 64 bits, as xxhsum -H3 (not cryptographic)'
xxh128\t'XXH3, 128 bits, as xxhsum -H2 (not cryptographic)'
crc\t'the POSIX CRC and the size, as cksum'
bsd\t'BSD sum and the size in KiB, as sum -r'
sysv\t'System V sum and the size in 512-byte blocks, as sum -s'
crc32c\t'CRC-32C (Castagnoli), as GCS and S3 report it'
crc64nvme\t'CRC-64/NVME, S3\'s default full-object checksum'"
complete -c fastsum -l part-size -d 'S3\'s ETag and composite checksums over SIZE parts' -r
complete -c fastsum -l exclude -d 'With -r, leave out what PATTERN matches (repeatable)' -r
complete -c fastsum -l exclude-from -d 'With -r, leave out what the patterns in FILE match, one a line' -r
complete -c fastsum -l max-depth -d 'With -r, go at most N directories below the operand (1: its own files)' -r
complete -c fastsum -l update -d 'Add to SUMS the lines of the FILEs it does not list yet' -r
complete -c fastsum -l files0-from -d 'Hash the files named in LIST, each name ended by a NUL (- : standard input)' -r
complete -c fastsum -l files-from -d 'Hash the files named in LIST, one a line (- : standard input)' -r
complete -c fastsum -l shard -d 'Hash only the K-th of N shares of the inputs (K from 0), balanced by bytes' -r
complete -c fastsum -l output -d 'Write the lines to FILE, which appears only complete' -r
complete -c fastsum -s j -l jobs -d 'Hash up to N inputs at once [default: one per core]' -r
complete -c fastsum -s l -l length -d 'Digest bits: blake2b 8-512 (0: 512), sha3 224-512' -r
complete -c fastsum -l verify-with -d 'With -c, verify each check file\'s signature with the public key KEY first' -r
complete -c fastsum -l signature -d 'With --verify-with, the check file\'s detached signature is FILE' -r
complete -c fastsum -l audit -d 'With -c, also walk DIR: report files NEW, MISSING or MOVED' -r
complete -c fastsum -s m -l mode -d 'How bytes reach the hash function' -r -f -a "threaded\t'A reader thread fills --readahead blocks from a bounded pool and hands them over a channel to the hasher(s), which hash them --chunk bytes per update: reading overlaps hashing, memory stays bounded. Regular files of 1 MiB or more are memory-mapped when the algorithm is BLAKE3 (hashed on up to -j threads) or when several algorithms hash them, and a file of 16 MiB or more followed by another such file when it is all in the page cache: several big files then hash at once. Where reads wait on the storage (a network or FUSE file system, a cold disk), small files are read by many threads at once'
sync\t'The hashing thread reads exactly --chunk bytes per read call into one reused buffer, then hashes it: read what you consume, one call at a time'
bytewise\t'std\'s BufReader and its bytes() iterator feed the hash one byte at a time: the naive baseline, for comparison'
mmap\t'Regular files of 64 KiB or more are memory-mapped and hashed in place, with no read calls or copies (BLAKE3 then hashes one file on every core); other inputs are read as in sync mode. A file truncated while mapped is reported as an error'"
complete -c fastsum -l chunk -d 'Bytes per hash update (threaded) or per read call (sync)' -r
complete -c fastsum -l readahead -d 'Bytes per block read by the reader thread (threaded mode)' -r
complete -c fastsum -l pool -d 'Number of --readahead blocks in the reader\'s pool (threaded mode)' -r
complete -c fastsum -s c -l check -d 'Read checksums from the FILEs and check them'
complete -c fastsum -s r -l recursive -d 'Hash the files under directories given as FILEs'
complete -c fastsum -l one-file-system -d 'With -r, do not enter directories on other file systems (as du -x)'
complete -c fastsum -l tree-digest -d 'With -r, print one digest per directory: of its whole manifest'
complete -c fastsum -l prune -d 'With --update, also drop the lines of files under the FILEs that no longer exist'
complete -c fastsum -l meta -d 'Record each file\'s size and mtime in a \'#meta\' line before its line'
complete -c fastsum -l list-sizes -d 'Each name of the list follows its size in bytes and a space'
complete -c fastsum -l merge -d 'Write the one manifest a run makes of the --shard parts given as FILEs'
complete -c fastsum -l tag -d 'Create a BSD-style checksum line: MD5 (name) = hex'
complete -c fastsum -l base64 -d 'Write digests in base64, as object stores show them'
complete -c fastsum -l untagged -d 'Write untagged lines (HEX  NAME) for every algorithm'
complete -c fastsum -s z -l zero -d 'End lines with NUL, not newline; do not escape names'
complete -c fastsum -s b -l binary -d 'Read in binary mode: mark names with * in the output'
complete -c fastsum -s t -l text -d 'Read in text mode, the default (same bytes hashed)'
complete -c fastsum -l quiet -d 'Do not print OK for each verified file'
complete -c fastsum -l status -d 'Print nothing; the exit status tells'
complete -c fastsum -s w -l warn -d 'Warn about improperly formatted checksum lines'
complete -c fastsum -l strict -d 'Exit non-zero for improperly formatted checksum lines'
complete -c fastsum -l ignore-missing -d 'Do not fail or report status for missing files'
complete -c fastsum -l json -d 'Print JSON Lines: one object per digest or check'
complete -c fastsum -l stats -d 'After the run, print bytes, time, throughput, read calls and waits on stderr'
complete -c fastsum -l progress -d 'Show progress on stderr even for short runs (when stderr is a terminal)'
complete -c fastsum -l no-progress -d 'Never show progress'
complete -c fastsum -s h -l help -d 'Print help (-h a summary, --help all of it)'
complete -c fastsum -s V -l version -d 'Print version'
