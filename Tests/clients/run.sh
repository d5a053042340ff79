#!/usr/bin/env bash
# The clients against real servers: keychainctl, every verb, its output compared byte for byte
# with what `security(1)` prints (Tests/clients/fixtures, written from Apple's SecurityTool source
# and man page), exit codes included; then keychainctl and KeychainClient (the ClusterTests suite)
# against two replicas on PostgreSQL behind nginx over TLS, trusting the test CA.
# Prints `clients: N passed, N failed`.
#
# Environment: KEYCHAIND, KEYCHAINCTL (prebuilt binaries; default: build them), SWIFT_FLAGS,
# NGINX (the nginx binary), KEYCHAIND_PG_BIN (PostgreSQL's bin directory).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)
ctl=$(keychainctl_binary)
fixtures=$root/Tests/clients/fixtures

make_tmp
stop_on_exit server_pid

# --- one server -------------------------------------------------------------------------------
printf 'clients test passphrase\n' >"$tmp/pass"
chmod 0600 "$tmp/pass"
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
port=$(free_port)
start_keychaind "$tmp/server.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --passphrase-file "$tmp/pass" --log-level warning
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || fail_with_log "clients: keychaind did not start" "$tmp/server.log"

export KEYCHAIND_URL=http://127.0.0.1:$port KEYCHAIND_TOKEN_FILE=$tmp/admin
unset KEYCHAIND_TOKEN KEYCHAIND_CA_FILE
export KEYCHAINCTL_CONFIG=$tmp/no-config.json

# kc NAME ARGS...: runs keychainctl ARGS; its standard output, standard error and exit status go
# to $tmp/NAME.out, .err and .status.
kc() {
    local name=$1 status=0
    shift
    "$ctl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || status=$?
    echo "$status" >"$tmp/$name.status"
}

# The keychain's URL and the timestamps vary from run to run; everything else is compared as it
# is. A time-date that is not exactly Apple's shape (16 bytes: YYYYMMDDhhmmssZ and a NUL, as hex
# and as text) is left as it is, and the comparison fails.
normalize() {
    sed -E -e 's|^keychain: ".*"$|keychain: "{KEYCHAIN}"|' \
        -e 's|<timedate>=0x3[0-9](3[0-9]){13}5A00  "[0-9]{14}Z\\000"$|<timedate>={TIMEDATE}|' "$1"
}

# same NAME STREAM FIXTURE: NAME's STREAM (out or err), normalized, is byte for byte FIXTURE.
same() {
    if diff -u "$fixtures/$3" <(normalize "$tmp/$1.$2") >"$tmp/$1.diff"; then return 0; fi
    cat "$tmp/$1.diff" >&2
    return 1
}
status_is() { [[ $(<"$tmp/$1.status") == "$2" ]]; }
err_is() { [[ $(<"$tmp/$1.err") == "$2" ]]; }
out_is() { [[ $(<"$tmp/$1.out") == "$2" ]]; }
empty() { [[ ! -s $tmp/$1 ]]; }

# --- generic passwords ------------------------------------------------------------------------
kc add-gp add-generic-password -a app -s db.example.com -w hunter2
check "add-generic-password exits 0 and prints nothing" bash -c "[[ \$(<'$tmp/add-gp.status') == 0 && ! -s '$tmp/add-gp.out' && ! -s '$tmp/add-gp.err' ]]"
kc add-dup add-generic-password -a app -s db.example.com -w other
check "a duplicate add exits 45 (errSecDuplicateItem)" status_is add-dup 45
check "a duplicate add says so as security does" err_is add-dup \
    "keychainctl: SecKeychainItemCreateFromContent (<default>): The specified item already exists in the keychain."
kc find-gp find-generic-password -s db.example.com -g
check "find-generic-password -g prints the attributes as security does" same find-gp out find-generic-password.out
check "find-generic-password -g prints the password on stderr" same find-gp err find-generic-password.err
check "find-generic-password exits 0" status_is find-gp 0
kc find-w find-generic-password -a app -s db.example.com -w
check "find-generic-password -w prints the bare password" out_is find-w hunter2
check "find-generic-password -w prints nothing else" empty find-w.err
kc find-none find-generic-password -s no.such.service
check "not found exits 44" status_is find-none 44
check "not found says so as security does" err_is find-none \
    "keychainctl: SecKeychainSearchCopyNext: The specified item could not be found in the keychain."
check "not found prints nothing on stdout" empty find-none.out
ln -s "$ctl" "$tmp/security"
status=0
"$tmp/security" find-generic-password -s no.such.service 2>"$tmp/as-security.err" || status=$?
check "run as security, the message is security's own, byte for byte" test "$(<"$tmp/as-security.err")" = \
    "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain."
check "run as security, not found exits 44" test "$status" = 44

# -U replaces; -w last prompts (here from standard input, which is no terminal).
kc add-u add-generic-password -a app -s db.example.com -w rotated -U
kc find-u find-generic-password -s db.example.com -w
check "add-generic-password -U replaces the password" out_is find-u rotated
printf 'from-prompt\n' | "$ctl" add-generic-password -a prompted -s db.example.com -w >/dev/null 2>&1
kc find-prompted find-generic-password -a prompted -w
check "-w last reads the password instead of taking an argument" out_is find-prompted from-prompt
printf '00ff6869' >"$tmp/hex"
kc add-x add-generic-password -a binary -s bin.example.com -X "$(<"$tmp/hex")"
kc find-x find-generic-password -s bin.example.com -g
check "a password that is not text prints in security's hex and octal form" same find-x err find-generic-password-binary.err
kc find-xw find-generic-password -s bin.example.com -w
check "-w prints a password that is not text in lowercase hex" out_is find-xw 00ff6869
kc usage find-generic-password --token kcd_x
check "a token is never an argument: --token is a usage error (exit 2)" status_is usage 2

kc del-gp delete-generic-password -a binary -s bin.example.com
check "delete-generic-password prints the item, then security's line on stderr" \
    bash -c "grep -q '\"svce\"<blob>=\"bin.example.com\"' '$tmp/del-gp.out' && [[ \$(<'$tmp/del-gp.err') == 'password has been deleted.' ]]"
kc del-again delete-generic-password -a binary -s bin.example.com
check "deleting it again exits 44" status_is del-again 44

# --- internet passwords -----------------------------------------------------------------------
kc add-ip add-internet-password -a alice -s www.example.com -r htps -P 443 -p /login -t dflt -w pw
kc find-ip find-internet-password -s www.example.com -g
check "find-internet-password prints the attributes as security does" same find-ip out find-internet-password.out
check "find-internet-password -g prints the password on stderr" err_is find-ip 'password: "pw"'
kc add-ip-dup add-internet-password -a alice -s www.example.com -r htps -P 443 -p /login -t dflt -w pw
check "a duplicate internet password says so as security does" err_is add-ip-dup \
    "keychainctl: SecKeychainAddInternetPassword <NULL>: The specified item already exists in the keychain."
kc del-ip delete-internet-password -s www.example.com
check "delete-internet-password deletes" bash -c "[[ \$(<'$tmp/del-ip.status') == 0 ]]"

# --- the keychain -----------------------------------------------------------------------------
kc settings set-keychain-settings -t 600
kc info show-keychain-info
check "show-keychain-info prints the timeout as security does" err_is info 'Keychain "<NULL>" timeout=600s'
kc settings0 set-keychain-settings
kc info0 show-keychain-info
check "set-keychain-settings without -t is no timeout" err_is info0 'Keychain "<NULL>" no-timeout'
kc lock lock-keychain
kc locked-find find-generic-password -s db.example.com -w
check "locked, reading a password exits 36 (errSecInteractionNotAllowed)" status_is locked-find 36
check "locked, reading a password prints nothing, as security" bash -c "[[ ! -s '$tmp/locked-find.err' && ! -s '$tmp/locked-find.out' ]]"
kc locked-attrs find-generic-password -s db.example.com
check "locked, attributes are still found" status_is locked-attrs 0
printf 'wrong\n' | "$ctl" unlock-keychain 2>"$tmp/unlock-wrong.err" && status=0 || status=$?
check "unlock with a wrong password exits 51 (errSecAuthFailed)" test "$status" = 51
check "unlock's failure is security's line" test "$(<"$tmp/unlock-wrong.err")" = \
    "keychainctl: SecKeychainUnlock <NULL>: The user name or passphrase you entered is not correct."
"$ctl" unlock-keychain <"$tmp/pass"
kc unlocked-find find-generic-password -s db.example.com -w
check "unlock-keychain reads the password from standard input" out_is unlocked-find rotated
kc relock lock-keychain
# On a terminal it asks, as security does (script gives it one; the passphrase is typed into it).
script -qec "'$ctl' unlock-keychain" /dev/null <"$tmp/pass" >"$tmp/unlock-tty.txt" 2>&1 || true
check "on a terminal, unlock-keychain asks as security does" grep -q 'password to unlock default: ' "$tmp/unlock-tty.txt"
kc tty-find find-generic-password -s db.example.com -w
check "the passphrase typed at the prompt unlocks" out_is tty-find rotated

# --- several keychains -------------------------------------------------------------------------
printf 'team a passphrase\n' | "$ctl" create-keychain team-a 2>"$tmp/create.err" && status=0 || status=$?
check "create-keychain reads the new keychain's password from standard input" test "$status" = 0
kc create-again create-keychain -p other team-a
check "creating a keychain that exists exits 48 (errSecDuplicateKeychain)" status_is create-again 48
kc list list-keychains
check "list-keychains prints the token's search list as security does" out_is list $'    "default"\n    "team-a"'
kc default default-keychain
check "default-keychain prints the token's default keychain" out_is default '    "default"'
kc add-team add-generic-password -a app -s team.example.com -w teampw team-a
check "add-generic-password adds to the keychain named last" status_is add-team 0
kc find-team find-generic-password -s team.example.com -w team-a
check "find-generic-password finds it in that keychain" out_is find-team teampw
kc find-elsewhere find-generic-password -s team.example.com -w default
check "a search of another keychain does not find it" status_is find-elsewhere 44
kc find-list find-generic-password -s team.example.com -w
check "without a keychain, the token's search list is searched" out_is find-list teampw
kc lock-team lock-keychain team-a
kc locked-team find-generic-password -s team.example.com -w team-a
check "a locked keychain's password is not read (36)" status_is locked-team 36
kc other-open find-generic-password -s db.example.com -w
check "locking one keychain leaves the other readable" out_is other-open rotated
printf 'wrong\n' | "$ctl" unlock-keychain team-a 2>"$tmp/unlock-team-wrong.err" && status=0 || status=$?
check "the default keychain's failures are not team-a's: a wrong password exits 51" test "$status" = 51
printf 'team a passphrase\n' | "$ctl" unlock-keychain team-a
kc find-team-again find-generic-password -s team.example.com -w team-a
check "unlock-keychain NAME unlocks that keychain with its own password" out_is find-team-again teampw
kc lock-all lock-keychain -a
kc locked-all find-generic-password -s db.example.com -w
check "lock-keychain -a locks every keychain" status_is locked-all 36
"$ctl" unlock-keychain <"$tmp/pass"
kc delete-team delete-keychain team-a
check "delete-keychain exits 0" status_is delete-team 0
kc list-after list-keychains
check "a deleted keychain leaves the search list" out_is list-after '    "default"'
kc delete-missing delete-keychain team-a
check "deleting a missing keychain exits 50 (errSecNoSuchKeychain)" status_is delete-missing 50

# --- certificates and identities ---------------------------------------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj "/CN=Clients Test CA" \
    -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=svc.example.com" \
    -keyout "$tmp/leaf.key" -out "$tmp/leaf.csr" 2>/dev/null
printf 'subjectAltName=email:ops@example.com\n' >"$tmp/leaf.ext"
openssl x509 -req -in "$tmp/leaf.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -set_serial 0x1001 -days 30 \
    -extfile "$tmp/leaf.ext" -out "$tmp/leaf.pem" 2>/dev/null
openssl pkcs12 -export -in "$tmp/leaf.pem" -inkey "$tmp/leaf.key" -passout pass:p12pass -out "$tmp/leaf.p12"
kc add-ca add-certificates "$tmp/ca.pem"
check "add-certificates adds a certificate" status_is add-ca 0
kc add-ca-again add-certificates "$tmp/ca.pem"
check "adding it again says it is already there, and exits 1" bash -c \
    "[[ \$(<'$tmp/add-ca-again.status') == 1 && \$(<'$tmp/add-ca-again.err') == 'keychainctl: $tmp/ca.pem: already in default keychain' ]]"
kc find-ca find-certificate -c "Clients Test CA" -Z -p
ca_sha256=$(openssl x509 -in "$tmp/ca.pem" -noout -fingerprint -sha256 | sed 's/.*=//; s/://g')
ca_sha1=$(openssl x509 -in "$tmp/ca.pem" -noout -fingerprint -sha1 | sed 's/.*=//; s/://g')
check "find-certificate -Z -p prints both hashes, then the PEM" bash -c \
    "diff <(printf 'SHA-256 hash: %s\nSHA-1 hash: %s\n' '$ca_sha256' '$ca_sha1'; cat '$tmp/ca.pem') '$tmp/find-ca.out'"
kc find-ca-attrs find-certificate -c "Clients Test CA"
check "find-certificate prints the certificate's attributes in security's shape" bash -c \
    "grep -qx 'class: 0x80001000 ' '$tmp/find-ca-attrs.out' && grep -qx '    \"ctyp\"<uint32>=0x00000003 ' '$tmp/find-ca-attrs.out' && grep -qx '    \"labl\"<blob>=\"Clients Test CA\"' '$tmp/find-ca-attrs.out'"
printf 'p12pass\n' >"$tmp/p12pass"
kc import import "$tmp/leaf.p12" -f pkcs12 --passphrase-file "$tmp/p12pass"
check "import of a PKCS#12 prints security's line" out_is import "1 identity imported."
kc import-wrong import "$tmp/leaf.p12" -f pkcs12 -P wrong
check "a wrong PKCS#12 passphrase exits 1, as security's import does" status_is import-wrong 1
check "a wrong PKCS#12 passphrase is security's line" err_is import-wrong \
    "keychainctl: SecKeychainItemImport: The user name or passphrase you entered is not correct."
kc find-email find-certificate -e ops@example.com -m
check "find-certificate -e -m finds by email and prints it" bash -c "grep -qx 'email addresses: ops@example.com' '$tmp/find-email.out'"
leaf_sha1=$(openssl x509 -in "$tmp/leaf.pem" -noout -fingerprint -sha1 | sed 's/.*=//; s/://g')
kc identity find-identity
check "find-identity lists the identity as security does" bash -c "diff <(printf '\nPolicy: X.509 Basic\n  Matching identities\n  1) %s \"svc.example.com\"\n     1 identities found\n\n  Valid identities only\n  1) %s \"svc.example.com\"\n     1 valid identities found\n' '$leaf_sha1' '$leaf_sha1') '$tmp/identity.out'"
kc identity-v find-identity -v
check "find-identity -v lists only valid ones" bash -c "diff <(printf '  1) %s \"svc.example.com\"\n     1 valid identities found\n' '$leaf_sha1') '$tmp/identity-v.out'"
kc export-certs export -t certs -o "$tmp/certs.pem"
check "export -t certs writes PEM certificates" bash -c "[[ \$(grep -c 'BEGIN CERTIFICATE' '$tmp/certs.pem') == 2 ]]"
check "export -o says how many bytes it wrote" bash -c "[[ \$(<'$tmp/export-certs.err') == \"...\$(stat -c %s '$tmp/certs.pem') bytes written to $tmp/certs.pem\" ]]"
kc export-p12 export -t identities -f pkcs12 -P outpass -o "$tmp/out.p12"
check "export -f pkcs12 writes a PKCS#12 openssl reads" bash -c \
    "openssl pkcs12 -in '$tmp/out.p12' -passin pass:outpass -nokeys 2>/dev/null | grep -q 'subject=CN *= *svc.example.com'"
kc import-pem import "$tmp/ca.pem"
check "importing a certificate the keychain has is errSecDuplicateItem, exit 1" bash -c "[[ \$(<'$tmp/import-pem.status') == 1 && \$(<'$tmp/import-pem.err') == 'keychainctl: SecKeychainItemImport: The specified item already exists in the keychain.' ]]"

# --- keys used in place -------------------------------------------------------------------------
kc keypair create-keypair -a ec -s 256 --tag deploy -H "deploy key"
check "create-keypair exits 0 and prints the public key hash with -H" bash -c \
    "[[ \$(<'$tmp/keypair.status') == 0 && \$(head -1 '$tmp/keypair.out') == '-----BEGIN PUBLIC KEY HASH-----' ]]"
kc pub public-key --tag deploy -l "deploy key" -o "$tmp/deploy.pem"
kc pub-raw public-key --tag deploy -r
check "public-key writes a PEM public key openssl reads" openssl pkey -pubin -in "$tmp/deploy.pem" -noout
check "public-key -r is Apple's external representation (65 bytes for P-256)" bash -c \
    "[[ \$(stat -c %s '$tmp/pub-raw.out') == 65 && \$(head -c1 '$tmp/pub-raw.out' | od -An -tx1 | tr -d ' ') == 04 ]]"
check "the hash -H printed is SHA-1 of that public key" bash -c \
    "[[ \$(sed '1d;\$d' '$tmp/keypair.out' | base64 -d | od -An -tx1 | tr -d ' \n') == \$(sha1sum <'$tmp/pub-raw.out' | cut -c1-40) ]]"
printf 'release 1.2.3' >"$tmp/msg"
kc sign sign -a ecdsaSignatureMessageX962SHA256 --tag deploy -i "$tmp/msg" -o "$tmp/msg.sig"
check "sign exits 0 and prints nothing with -o" bash -c "[[ \$(<'$tmp/sign.status') == 0 && ! -s '$tmp/sign.out' ]]"
check "openssl verifies keychainctl's ECDSA signature" bash -c \
    "openssl dgst -sha256 -verify '$tmp/deploy.pem' -signature '$tmp/msg.sig' '$tmp/msg' | grep -q 'Verified OK'"
kc verify verify -a ecdsaSignatureMessageX962SHA256 --tag deploy -s "$tmp/msg.sig" -i "$tmp/msg"
check "verify with the kept public key exits 0" status_is verify 0
printf 'release 6.6.6' >"$tmp/other"
kc verify-bad verify -a ecdsaSignatureMessageX962SHA256 --tag deploy -s "$tmp/msg.sig" -i "$tmp/other"
check "a signature that does not verify exits 1" status_is verify-bad 1
check "and says so as Keychain Services does" err_is verify-bad \
    "keychainctl: SecKeyVerifySignature: A cryptographic verification failure has occurred."
openssl genpkey -algorithm ed25519 -out "$tmp/ed.key" 2>/dev/null
openssl pkey -in "$tmp/ed.key" -pubout -out "$tmp/ed.pem"
openssl pkeyutl -sign -rawin -inkey "$tmp/ed.key" -in "$tmp/msg" -out "$tmp/ed.sig"
kc verify-file verify -a edDSASignatureMessageCurve25519SHA512 --public-key "$tmp/ed.pem" -s "$tmp/ed.sig" -i "$tmp/msg"
check "verify --public-key checks openssl's Ed25519 signature" status_is verify-file 0
kc rsa create-keypair -a rsa --tag crypt "crypt key"
kc rsa-pub public-key --tag crypt -o "$tmp/rsa.pem"
printf 'the database password' >"$tmp/plain"
openssl pkeyutl -encrypt -pubin -inkey "$tmp/rsa.pem" -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
    -pkeyopt rsa_mgf1_md:sha256 -in "$tmp/plain" -out "$tmp/rsa.ct"
kc decrypt decrypt -a rsaEncryptionOAEPSHA256 --tag crypt -i "$tmp/rsa.ct"
check "decrypt opens openssl's RSA-OAEP ciphertext with the kept key" out_is decrypt "the database password"
kc encrypt encrypt -a eciesEncryptionCofactorVariableIVX963SHA256AESGCM --public-key "$tmp/deploy.pem" -i "$tmp/plain" -o "$tmp/ecies.ct"
kc ecies-open decrypt -a eciesEncryptionCofactorVariableIVX963SHA256AESGCM --tag deploy -i "$tmp/ecies.ct"
check "encrypt to a public key file, decrypt with the kept key" out_is ecies-open "the database password"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/peer.key" 2>/dev/null
openssl pkey -in "$tmp/peer.key" -pubout -out "$tmp/peer.pem"
kc derive key-exchange -a ecdhKeyExchangeStandard --tag deploy --peer "$tmp/peer.pem" -o "$tmp/ours"
openssl pkeyutl -derive -inkey "$tmp/peer.key" -peerkey "$tmp/deploy.pem" -out "$tmp/theirs"
check "key-exchange agrees with openssl's ECDH" cmp "$tmp/ours" "$tmp/theirs"
kc sign-none sign -a ecdsaSignatureMessageX962SHA256 --tag no-such-key -i "$tmp/msg"
check "signing with no such key exits 44, as security's not found" status_is sign-none 44
check "and says so as Keychain Services does" err_is sign-none \
    "keychainctl: SecKeyCreateSignature: The specified item could not be found in the keychain."
kc keypair-size create-keypair -a ec -s 192
check "create-keypair with a size the server does not make exits 1 naming keySizeInBits" bash -c \
    "[[ \$(<'$tmp/keypair-size.status') == 1 ]] && grep -q keySizeInBits '$tmp/keypair-size.err'"
kc keypair-dsa create-keypair -a dsa
check "create-keypair -a dsa is a usage error (exit 2)" status_is keypair-dsa 2
kc signer-token token create --name signer --group '*' --capability use
sed -n 2p "$tmp/signer-token.out" >"$tmp/signer"
kc signer-sign sign -a ecdsaSignatureMessageX962SHA256 --tag deploy -i "$tmp/msg" -o "$tmp/signer.sig" --token-file "$tmp/signer"
check "a token with use alone signs" bash -c "[[ \$(<'$tmp/signer-sign.status') == 0 && -s '$tmp/signer.sig' ]]"
kc signer-pub public-key --tag deploy -r --token-file "$tmp/signer"
check "and copies the public key" cmp "$tmp/signer-pub.out" "$tmp/pub-raw.out"
kc signer-find find-generic-password -s db.example.com -w --token-file "$tmp/signer"
check "but reads no secret (exit 30: errSecMissingEntitlement)" status_is signer-find 30

# --- tokens -----------------------------------------------------------------------------------
kc token-create token create --name reader --group apps --capability read --capability list
token_id=$(sed -n 1p "$tmp/token-create.out")
token_secret=$(sed -n 2p "$tmp/token-create.out")
check "token create prints the id, then the secret" bash -c "[[ '$token_id' == tok_* && '$token_secret' == kcd_* ]]"
kc token-list token list
check "token list shows the token and never a secret" bash -c \
    "grep -q '^$token_id \"reader\" groups=apps keychains=default capabilities=read,list' '$tmp/token-list.out' && ! grep -q kcd_ '$tmp/token-list.out'"
printf '%s\n' "$token_secret" >"$tmp/reader"
kc token-self token self --token-file "$tmp/reader"
check "--token-file uses that token" bash -c "grep -q '\"reader\"' '$tmp/token-self.out'"
kc token-revoke token revoke "$token_id"
kc token-revoked token self --token-file "$tmp/reader"
check "a revoked token is refused (exit 51)" status_is token-revoked 51
printf '{"url":"%s","token":"%s"}' "$KEYCHAIND_URL" "$(<"$tmp/admin")" >"$tmp/config.json"
chmod 0644 "$tmp/config.json"
status=0
KEYCHAINCTL_CONFIG=$tmp/config.json KEYCHAIND_TOKEN_FILE= "$ctl" token self >/dev/null 2>"$tmp/config.err" || status=$?
check "a config file holding a token that others may read is refused" bash -c "[[ $status == 1 ]] && grep -q 'chmod 600' '$tmp/config.err'"
chmod 0600 "$tmp/config.json"
check "a config file of mode 0600 gives the URL and the token" bash -c "KEYCHAINCTL_CONFIG='$tmp/config.json' \
    KEYCHAIND_TOKEN_FILE= KEYCHAIND_URL= '$ctl' token self | grep -q '\"admin\"'"

# --- run --------------------------------------------------------------------------------------
kc run run --env DB_PASSWORD=db.example.com/app -- sh -c 'printf %s "$DB_PASSWORD"'
check "run gives the command the secret in its environment" out_is run rotated
kc run-args run --env DB_PASSWORD=db.example.com/app -- sh -c 'tr "\0" " " </proc/$$/cmdline'
check "the secret is not in the command's arguments" bash -c "! grep -q rotated '$tmp/run-args.out'"
kc run-missing run --env X=no.such.service -- sh -c 'echo ran'
check "a missing secret exits 44 and does not run the command" bash -c "[[ \$(<'$tmp/run-missing.status') == 44 && ! -s '$tmp/run-missing.out' ]]"
kc run-status run --env X=db.example.com/app -- sh -c 'exit 7'
check "run's exit status is the command's" status_is run-status 7

# --- dump-keychain, paging and the progress bar --------------------------------------------------
python3 - "$port" "$(<"$tmp/admin")" <<'PY'
import base64, http.client, json, sys
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for n in range(2500):
    body = json.dumps({"class": "genericPassword", "service": "bulk", "account": "%04d" % n,
                       "valueData": base64.b64encode(b"v%d" % n).decode()})
    conn.request("POST", "/v1/items", body, {"Authorization": "Bearer " + sys.argv[2]})
    answer = conn.getresponse(); answer.read()
    assert answer.status == 201, answer.status
PY
kc dump dump-keychain -d
check "dump-keychain -d prints every item, across pages, with its data" bash -c \
    "[[ \$(grep -c '^class: \"genp\"' '$tmp/dump.out') == 2502 ]] && grep -qx '\"v2499\"' '$tmp/dump.out'"
check "dump-keychain draws no progress bar when stderr is not a terminal" empty dump.err
script -qec "'$ctl' dump-keychain >/dev/null" /dev/null >"$tmp/dump-tty.txt" </dev/null
check "dump-keychain draws a progress bar on a terminal" grep -q 'dump-keychain \[#' "$tmp/dump-tty.txt"

# --- events -----------------------------------------------------------------------------------
"$ctl" events --count 2 >"$tmp/events.out" 2>"$tmp/events.err" </dev/null &
events_pid=$!
# subscribed: a bounded poll (10 s) of the server's subscriber gauge, so that the writes below
# come after the subscription.
subscribed() {
    for _ in $(seq 100); do
        curl -sS -H "Authorization: Bearer $(<"$tmp/admin")" "$KEYCHAIND_URL/metrics" |
            grep -qE '^keychaind_events_subscribers 1(\.0)?$' && return 0
        sleep 0.1
    done
    return 1
}
check "events subscribes" subscribed
kc events-add add-generic-password -a events -s events.example.com -w x
kc events-delete delete-generic-password -a events -s events.example.com
wait "$events_pid" || true
check "events prints each event as it happens, a line each, then stops at --count" bash -c \
    "[[ \$(cut -d' ' -f1,3,4,5 '$tmp/events.out') == \$'add keychain=default class=genericPassword accessGroup=default\ndelete keychain=default class=genericPassword accessGroup=default' ]]"

# --- access objects ------------------------------------------------------------------------------
kc trusted-token token create --name trusted --group '*' --capability read --capability write
trusted_id=$(sed -n 1p "$tmp/trusted-token.out")
sed -n 2p "$tmp/trusted-token.out" >"$tmp/trusted"
kc other-token token create --name other --group '*' --capability read
sed -n 2p "$tmp/other-token.out" >"$tmp/other"
kc add-trusted add-generic-password -a app -s guarded.example.com -T "$trusted_id" -w guarded-pw
check "add-generic-password -T gives the item an access object trusting that token" bash -c \
    "[[ \$(<'$tmp/add-trusted.status') == 0 ]] && '$ctl' find-generic-password -s guarded.example.com -w --token-file '$tmp/trusted' | grep -qx guarded-pw"
kc find-untrusted find-generic-password -s guarded.example.com -w --token-file "$tmp/other"
check "another token, without a terminal to ask on, is refused (exit 29)" status_is find-untrusted 29
check "and told so as Keychain Services says it" grep -qx \
    "keychainctl: SecKeychainSearchCopyNext: User interaction is required, but is currently not allowed." "$tmp/find-untrusted.err"
script -qec "'$ctl' find-generic-password -s guarded.example.com -w --token-file '$tmp/other'" /dev/null \
    <"$tmp/pass" >"$tmp/find-tty.txt" 2>&1 || true
check "on a terminal it asks for the keychain's password, and reads with it" bash -c \
    "grep -q 'password to allow access to the item: ' '$tmp/find-tty.txt' && grep -q guarded-pw '$tmp/find-tty.txt'"
script -qec "'$ctl' delete-generic-password -s guarded.example.com" /dev/null <"$tmp/pass" >"$tmp/delete-tty.txt" 2>&1 || true
check "deleting it asks the owner's password on a terminal, then deletes" bash -c \
    "grep -q 'password has been deleted.' '$tmp/delete-tty.txt' && ! '$ctl' find-generic-password -s guarded.example.com >/dev/null 2>&1"
kc add-both add-generic-password -a app -s both.example.com -A -T "$trusted_id" -w x
check "-A and -T together are a usage error (exit 2)" status_is add-both 2
kc add-later add-generic-password -a app -s later.example.com -w later-pw
kc set-trusted set-generic-password-access -s later.example.com -T "$trusted_id"
check "set-generic-password-access -T gives an item SecAccessCreate's object" bash -c \
    "[[ \$(<'$tmp/set-trusted.status') == 0 ]] && ! '$ctl' find-generic-password -s later.example.com -w --token-file '$tmp/other' >/dev/null 2>&1"
kc dump-acl dump-keychain -a
check "dump-keychain -a prints the access object as security does" bash -c \
    "grep -A14 -x 'access: 3 entries' '$tmp/dump-acl.out' | diff - <(printf '%s\n' 'access: 3 entries' '    entry 0:' \
        '        authorizations (1): change_acl' '        require-password' '        description: later.example.com' '        applications (0):' \
        '    entry 1:' '        authorizations (1): encrypt' \"        don't-require-password\" '        description: later.example.com' \
        '        applications: <null>' '    entry 2:' '        authorizations (4): decrypt sign derive export_clear' \
        '        require-password' '        description: later.example.com')"
check "and its trusted token where security prints applications" bash -c \
    "grep -A2 -x '        applications (1):' '$tmp/dump-acl.out' | grep -qx '            0: $trusted_id'"
check "and says so of an item without one" grep -qx 'no access control for this item' "$tmp/dump-acl.out"
# As GET /v1/items/{ref}/access answers it: the object under "access".
printf '{"persistentRef":"x","access":{"entries":[{"authorizations":["any"],"tokens":"any"}]}}' >"$tmp/open-access.json"
kc set-owner-refused set-generic-password-access -s later.example.com --from "$tmp/open-access.json"
check "changing it takes the owner's password: without a terminal, exit 29" status_is set-owner-refused 29
script -qec "'$ctl' set-generic-password-access -s later.example.com --from '$tmp/open-access.json'" /dev/null \
    <"$tmp/pass" >"$tmp/set-tty.txt" 2>&1 || true
check "on a terminal it asks for it, then sets the object from the file" bash -c \
    "grep -q 'password to allow access to the item: ' '$tmp/set-tty.txt' && \
     '$ctl' find-generic-password -s later.example.com -w --token-file '$tmp/other' | grep -qx later-pw"
kc set-any set-generic-password-access -s later.example.com -A
kc dump-after dump-keychain -a
check "-A removes the access object" bash -c \
    "[[ \$(<'$tmp/set-any.status') == 0 ]] && ! grep -q '^access: ' '$tmp/dump-after.out'"
printf '{"entries":[{"authorizations":["any"],"tokens":7}]}' >"$tmp/bad-access.json"
kc set-bad set-generic-password-access -s later.example.com --from "$tmp/bad-access.json"
check "a malformed access file exits 1 naming the field" bash -c \
    "[[ \$(<'$tmp/set-bad.status') == 1 ]] && grep -q -- '--from: entries\[0\].tokens' '$tmp/set-bad.err'"
kc set-none set-generic-password-access -s later.example.com
check "set-generic-password-access without -T, -A or --from is a usage error (exit 2)" status_is set-none 2

# --- completion -------------------------------------------------------------------------------
"$ctl" --generate-completion-script bash >"$tmp/completion.bash"
check "bash completion is a valid script naming the verbs" bash -c \
    "bash -n '$tmp/completion.bash' && grep -q find-generic-password '$tmp/completion.bash'"
"$ctl" --generate-completion-script zsh >"$tmp/completion.zsh"
check "zsh completion names the verbs" grep -q find-internet-password "$tmp/completion.zsh"

stop_process "$server_pid"
server_pid=

# --- two replicas on PostgreSQL behind nginx over TLS --------------------------------------------
nginx_binary clients
make_traversable_tmp pgdir
make_traversable_tmp prefix
stop_on_exit nginx_pid
stop_on_exit replica1_pid
stop_on_exit replica2_pid
start_postgres "$pgdir"
"$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE keychain"
database="postgresql://postgres@127.0.0.1:$pg_port/keychain"
"$bin" init --data-dir "$tmp/r1" --database "$database" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/cluster-admin" >/dev/null
mkdir -m 0700 "$tmp/r2"
cp "$tmp/r1/instance.key" "$tmp/r2/instance.key"
for n in 1 2; do
    replica_port=$(free_port)
    start_keychaind "$tmp/replica$n.log" "$bin" serve --data-dir "$tmp/r$n" --database "$database" \
        --listen "127.0.0.1:$replica_port" --trusted-proxy 127.0.0.2 --passphrase-file "$tmp/pass" --log-level warning
    printf -v "replica${n}_pid" %s "$server_pid"
    printf -v "replica${n}_port" %s "$replica_port"
    wait_http "http://127.0.0.1:$replica_port/v1/health" "$server_pid" -f ||
        fail_with_log "clients: replica $n did not start" "$tmp/replica$n.log"
done
server_pid=
tls_port=$(free_port)
start_nginx "$prefix" "$tls_port" "$replica1_port,$replica2_port"
wait_http "https://127.0.0.1:$tls_port/v1/health" "$nginx_pid" --cacert "$prefix/tls.crt" -f ||
    fail_with_log "clients: nginx did not start" "$prefix/error.log"

export KEYCHAIND_URL=https://127.0.0.1:$tls_port KEYCHAIND_TOKEN_FILE=$tmp/cluster-admin KEYCHAIND_CA_FILE=$prefix/tls.crt
kc tls-add add-generic-password -a app -s tls.example.com -w over-tls
kc tls-find find-generic-password -s tls.example.com -w
check "over TLS to two replicas: add, then find -w" out_is tls-find over-tls
kc tls-find-g find-generic-password -s tls.example.com -g
check "over TLS, the output is security's" bash -c "normalize() { sed -E -e 's|^keychain: \".*\"\$|keychain: \"{KEYCHAIN}\"|' \"\$1\"; }; grep -qx '    \"svce\"<blob>=\"tls.example.com\"' '$tmp/tls-find-g.out' && [[ \$(<'$tmp/tls-find-g.err') == 'password: \"over-tls\"' ]]"
kc tls-lock lock-keychain
# Each replica learns of the other's lock within a second: a bounded poll of both.
health_becomes "http://127.0.0.1:$replica1_port/v1/health" 503 && health_becomes "http://127.0.0.1:$replica2_port/v1/health" 503
kc tls-locked find-generic-password -s tls.example.com -w
check "over TLS, a lock on one replica is the cluster's: exit 36" status_is tls-locked 36
"$ctl" unlock-keychain <"$tmp/pass"
health_becomes "http://127.0.0.1:$replica1_port/v1/health" 200 && health_becomes "http://127.0.0.1:$replica2_port/v1/health" 200
kc tls-run run --env SECRET=tls.example.com/app -- sh -c 'printf %s "$SECRET"'
check "over TLS, run passes the secret" out_is tls-run over-tls
kc tls-untrusted find-generic-password -s tls.example.com -w --ca-file "$tmp/ca.pem"
check "a server certificate the given CA did not sign is refused (errSecNotAvailable, exit 53)" bash -c \
    "[[ \$(<'$tmp/tls-untrusted.status') == 53 ]] && grep -q 'TLS' '$tmp/tls-untrusted.err'"
kc tls-del delete-generic-password -s tls.example.com
check "over TLS, delete" status_is tls-del 0

# KeychainClient's own suite against the same cluster.
read -r -a swift_flags <<<"${SWIFT_FLAGS:-}"
swift build "${swift_flags[@]}" --build-tests >&2
if KEYCHAINCLIENT_CLUSTER_URL=$KEYCHAIND_URL KEYCHAINCLIENT_CLUSTER_CA_FILE=$prefix/tls.crt \
    KEYCHAINCLIENT_CLUSTER_ADMIN_TOKEN_FILE=$tmp/cluster-admin KEYCHAINCLIENT_CLUSTER_PASSPHRASE_FILE=$tmp/pass \
    swift test "${swift_flags[@]}" --skip-build --filter ClusterTests >"$tmp/cluster-tests.log" 2>&1 &&
    grep -q 'Test run with 5 tests' "$tmp/cluster-tests.log"; then
    pass
else
    fail
    echo "FAIL: KeychainClient's ClusterTests against two replicas behind nginx over TLS" >&2
    grep -E '✘|error|Test run' "$tmp/cluster-tests.log" >&2 || cat "$tmp/cluster-tests.log" >&2
fi

report clients
