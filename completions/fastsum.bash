_fastsum() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="fastsum"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        fastsum)
            opts="-a -c -r -j -z -b -t -l -w -m -h -V --algorithm --part-size --check --recursive --exclude --exclude-from --max-depth --one-file-system --tree-digest --update --prune --meta --files0-from --files-from --list-sizes --shard --merge --output --jobs --tag --base64 --untagged --zero --binary --text --length --quiet --status --warn --strict --ignore-missing --verify-with --signature --audit --json --mode --chunk --readahead --pool --stats --progress --no-progress --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --algorithm)
                    COMPREPLY=($(compgen -W "md5 sha1 sha224 sha256 sha384 sha512 blake3 blake2b sm3 sha3 crc32b xxh32 xxh64 xxh3 xxh128 crc bsd sysv crc32c crc64nvme" -- "${cur}"))
                    return 0
                    ;;
                -a)
                    COMPREPLY=($(compgen -W "md5 sha1 sha224 sha256 sha384 sha512 blake3 blake2b sm3 sha3 crc32b xxh32 xxh64 xxh3 xxh128 crc bsd sysv crc32c crc64nvme" -- "${cur}"))
                    return 0
                    ;;
                --part-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --exclude)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --exclude-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-depth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --update)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files0-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --length)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --verify-with)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --signature)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --audit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -W "threaded sync bytewise mmap" -- "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -W "threaded sync bytewise mmap" -- "${cur}"))
                    return 0
                    ;;
                --chunk)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --readahead)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _fastsum -o nosort -o bashdefault -o default fastsum
else
    complete -F _fastsum -o bashdefault -o default fastsum
fi
