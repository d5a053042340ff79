import TestSupport

// Test data of Apple's regression tests (apple-oss-distributions/Security, tag Security-61901.0.87.0.1):
// certificates, keys and PKCS#12 files, each copied byte for byte from the array or base64 string
// named in its comment, and carried here as base64. Data only; the ports that use them are in this
// directory.

/// Apple's test certificates, keys and PKCS#12 files.
enum AppleTestData {
    /// OSX/sec/Security/Regressions/secitem/si-05-add.c `_myCert`: VeriSign International Server CA - Class 3
    /// (issued by the Class 3 Public Primary Certification Authority), serial
    /// 254B8A853842CCE358F8C5DDAE226EA4.
    static let si05MyCert = bytes(
        """
        MIIDgzCCAuygAwIBAgIQJUuKhThCzONY+MXdriJupDANBgkqhkiG9w0BAQUFADBfMQswCQYDVQQGEwJVUzEXMBUGA1UEChMOVmVy
        aVNpZ24sIEluYy4xNzA1BgNVBAsTLkNsYXNzIDMgUHVibGljIFByaW1hcnkgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkwHhcNOTcw
        NDE3MDAwMDAwWhcNMTExMDI0MjM1OTU5WjCBujEfMB0GA1UEChMWVmVyaVNpZ24gVHJ1c3QgTmV0d29yazEXMBUGA1UECxMOVmVy
        aVNpZ24sIEluYy4xMzAxBgNVBAsTKlZlcmlTaWduIEludGVybmF0aW9uYWwgU2VydmVyIENBIC0gQ2xhc3MgMzFJMEcGA1UECxNA
        d3d3LnZlcmlzaWduLmNvbS9DUFMgSW5jb3JwLmJ5IFJlZi4gTElBQklMSVRZIExURC4oYyk5NyBWZXJpU2lnbjCBnzANBgkqhkiG
        9w0BAQEFAAOBjQAwgYkCgYEA2IKA6NYZAn0fhRg5JaJlK+G/1AXTvOY2O6rwTGxbtueqPHNFVbLxveqXQu2aNAoV1Klc9UAl3dkH
        wTKydWzEyruj/lYncUOqY/UwPpMo5frxCTvzt01OOfdcSVq4wR3Tsor+cDCVQsv+K1GLWjw6+SJPkLICp1OcTzTnqwSye28CAwEA
        AaOB4zCB4DAPBgNVHRMECDAGAQH/AgEAMEQGA1UdIAQ9MDswOQYLYIZIAYb4RQEHAQEwKjAoBggrBgEFBQcCARYcaHR0cHM6Ly93
        d3cudmVyaXNpZ24uY29tL0NQUzA0BgNVHSUELTArBggrBgEFBQcDAQYIKwYBBQUHAwIGCWCGSAGG+EIEAQYKYIZIAYb4RQEIATAL
        BgNVHQ8EBAMCAQYwEQYJYIZIAYb4QgEBBAQDAgEGMDEGA1UdHwQqMCgwJqAkoCKGIGh0dHA6Ly9jcmwudmVyaXNpZ24uY29tL3Bj
        YTMuY3JsMA0GCSqGSIb3DQEBBQUAA4GBAAgB7ORolANC8XPxI6I63unx2sZUxCM+hurPajozq+qcBBQHNgYL+Yhv1RPuKSvD5HKN
        RO3RrCAJLeH24RkFOLA9D59/+J4C3IYChmFOJl9en5IeDCSk9dBwE88mw0M9SR2egi5SX7w+xmYpAY5Okiy8RnUDgqxz6dl+C2fv
        VFIa
        """)

    /// OSX/sec/Security/Regressions/secitem/si-42-identity.m `_c0`: Apple Root CA.
    static let si42AppleRootCA = bytes(
        """
        MIIEuzCCA6OgAwIBAgIBAjANBgkqhkiG9w0BAQUFADBiMQswCQYDVQQGEwJVUzETMBEGA1UEChMKQXBwbGUgSW5jLjEmMCQGA1UE
        CxMdQXBwbGUgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxFjAUBgNVBAMTDUFwcGxlIFJvb3QgQ0EwHhcNMDYwNDI1MjE0MDM2WhcN
        MzUwMjA5MjE0MDM2WjBiMQswCQYDVQQGEwJVUzETMBEGA1UEChMKQXBwbGUgSW5jLjEmMCQGA1UECxMdQXBwbGUgQ2VydGlmaWNh
        dGlvbiBBdXRob3JpdHkxFjAUBgNVBAMTDUFwcGxlIFJvb3QgQ0EwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQDkkakJ
        H5HbHkdQ6wXtXnmELes2oldMVeyLGYne+Uts9QerIjAC6Bg++FAJ039BqJj50cpmnCRrEdCju+QbKsMflZ56DKRHi1vUFjczy8QP
        Tc4UadHJGXL1XQ7Vf1+b8iUDulWPTV0N8WQ1IxVLFVkds5T39pyez1C6wVhQZ48ItCD3y6wsIG9wtj8BMIy3Q88PnT3zK0koGsj+
        zrW5DtleHNbLPbU6rfQPDgCSC7EhFi501TwN22IWq6NxkkdTVcGvL0Gz+PvjcM3mo0xFfh9Ma1CWQYnEdGILEINBhzOKgbEwWOxa
        BDKMaLOPHd5lc/9nXmW8Sdh2nzMUZaF3lMktAgMBAAGjggF6MIIBdjAOBgNVHQ8BAf8EBAMCAQYwDwYDVR0TAQH/BAUwAwEB/zAd
        BgNVHQ4EFgQUK9BpR5R2Cf70a40uQKb3R01/CF4wHwYDVR0jBBgwFoAUK9BpR5R2Cf70a40uQKb3R01/CF4wggERBgNVHSAEggEI
        MIIBBDCCAQAGCSqGSIb3Y2QFATCB8jAqBggrBgEFBQcCARYeaHR0cHM6Ly93d3cuYXBwbGUuY29tL2FwcGxlY2EvMIHDBggrBgEF
        BQcCAjCBthqBs1JlbGlhbmNlIG9uIHRoaXMgY2VydGlmaWNhdGUgYnkgYW55IHBhcnR5IGFzc3VtZXMgYWNjZXB0YW5jZSBvZiB0
        aGUgdGhlbiBhcHBsaWNhYmxlIHN0YW5kYXJkIHRlcm1zIGFuZCBjb25kaXRpb25zIG9mIHVzZSwgY2VydGlmaWNhdGUgcG9saWN5
        IGFuZCBjZXJ0aWZpY2F0aW9uIHByYWN0aWNlIHN0YXRlbWVudHMuMA0GCSqGSIb3DQEBBQUAA4IBAQBcNplMLXi37Yyb3PN3m/J2
        0ncwT8EfhYOFG5k9RzfyqZtAjizUsZAS2L70c5vu0mQPy3lPNNiiPvl4/2vIB+x9OYOLUyDTOMSxv5pPCmv/K/xZpwUJfBdAVhEe
        dNO3iyM7R6PVbyTi69G3cN8PReEnyvFteO3ntRcXqNx+IjXKJdXZD9Zr1KIkIxH3oayPc4FgxhtbCS+SsvhESPBgOJ4V9T0mZyCK
        M2r3DYLP3uujL/lTaltkwGMzd/c6ByxW69oPIQ7aunMZT7XZNn/Bh1XZp5m5MkL72NVxnn6hUrcbvZNCJBIqxw8dtk2cXmPIS4AX
        UKqK1drk/NAJBzewdXUh
        """)

    /// OSX/sec/Security/Regressions/secitem/si-42-identity.m `_c1`: CN=uranusLeaf, issued by CN=plutoCA.
    static let si42UranusLeaf = bytes(
        """
        MIIC4DCCAcigAwIBAgIBAjALBgkqhkiG9w0BAQUwMjEQMA4GA1UEAwwHcGx1dG9DQTEeMBwGCSqGSIb3DQEJAQwPcGx1dG9AcGx1
        dG8uY29tMB4XDTA1MTIxNzAwMDQyNVoXDTA2MTIxNzAwMDQyNVowNzETMBEGA1UEAwwKdXJhbnVzTGVhZjEgMB4GCSqGSIb3DQEJ
        AQwRdXJhbnVzQHVyYW51cy5jb20wggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCmgo7GfsmMmW+wYjI159v/NITccqjv
        Im+TY2SAgF1QfrQuG5OTScquzTRES9f6nzz8nmWp+15dGKP4sAisj/0Dy71/oCqm6sqjJO98w+uVy5A/Xt548j0yctszbptSnwxg
        SiSh9juAvaHcQAPnoFkf27TtV9x0DZlaEnRkqrallnX5QkPiUsJXI3XXqU8HMpm9PUS9BGLltywMEcWyLsQSHX9CHnGvOSt4R5Ij
        RO/jwUdpWvFIqjeklGuW5Uv9BceczDjRR4Vgf+/pLiUI+H2Y3WzrSjIzRAths/muJkG1ONvPE3IjW2Yghk0kwtSU3uMkt811nh2f
        vNBgNH34y0E5AgMBAAEwDQYJKoZIhvcNAQEFBQADggEBABelIu24Ph8RmcW6KD5+pusCgQahxoC5flxaY+CN69DsnDqUZHwTVA3W
        4yeIptJLNt0u+pTlAyfJpjEC6kB3LpPETeJw4mccqA3NGnKGLOrcf4xJLOeZE9o/WJ71TTyMHO2Fp+Ku2l++NhyfWqDcKsDucQcm
        i+iK+C02eMl5+r6YWZUSJPHaIMd4+XxqJEOCqA+xfZSqMDXladwKDq8QXhqBUFx+JLMHZUvBfsY429Nq8NiFYZqf/gJGKbKa4gTn
        csyHRrp9qPnQDyn8/dHQfzbB2H2IA2L1jAC1woFEZ1gRtDq70YyUIGDqoKzB8QhUuPZerPHseGmdfk0GO5t4eBA=
        """)

    /// OSX/sec/Security/Regressions/secitem/si-42-identity.m `_k1`: the RSA private key of `_c1` (PKCS#1).
    static let si42UranusKey = bytes(
        """
        MIIEpAIBAAKCAQEApoKOxn7JjJlvsGIyNefb/zSE3HKo7yJvk2NkgIBdUH60LhuTk0nKrs00REvX+p88/J5lqfteXRij+LAIrI/9
        A8u9f6AqpurKoyTvfMPrlcuQP17eePI9MnLbM26bUp8MYEokofY7gL2h3EAD56BZH9u07VfcdA2ZWhJ0ZKq2pZZ1+UJD4lLCVyN1
        16lPBzKZvT1EvQRi5bcsDBHFsi7EEh1/Qh5xrzkreEeSI0Tv48FHaVrxSKo3pJRrluVL/QXHnMw40UeFYH/v6S4lCPh9mN1s60oy
        M0QLYbP5riZBtTjbzxNyI1tmIIZNJMLUlN7jJLfNdZ4dn7zQYDR9+MtBOQIDAQABAoIBAE0n8kDIP1yHPNnepqWT6r02+Nmtx9oH
        euwxAkEJOjQyggtbe+akKucU70M2Yb4gS4JDY5iAghlhcZmq+Fn93qADqKua7CisY3l1hAOsRV4EFbNHoo8osHLQBgKvHgoK6RE1
        SgRCtQ/Sz03f2+9YvfOlOxE/xUeBha3XH1gGQtw3PNuYM6HGgAfgK8X1YDVqogZASqxkAlhNB+Np1+CPtfS8+qsasPop+MreePCJ
        4vm3aFsO3E6KVo0zIC7tLqtvunfv5hJiSZ6Hdhwe9A6eeJiRGuO0UUuMLwiXj/loYUDNthC0+3W0IMFa2mT9UQaFmp5dghTUQU51
        ELV70EzRAAECgYEAz45oBGcJqW7/EYzl5BbdtqZVyksLu7f15XPzJIQpssO8fytKx99GjuE1aRuOn2tN82WuPYcryfCM8ogvG3mA
        0rJkCsxmaUyhhcRqlEZwabyMHGJlTWjM4zxs59EJ7d1CEBFr3Xzj4Ts7DQFtyi9LRV52XVxvU6Q4dHWULNr4pgECgYEAzV+dbJT2
        RDdy/s++gpYkIhIHb9FXe8djIPWTeXAL5DgZYnuJPkXf1q6dDah2wb0EK6owaqxlkWHw+F2jU6T7maxGehJL96dIQWFIJlxoL3OR
        5HTNyYvnJuQ13jJrJEnyBGc9MY8i5UmuSZSzRSvtb5zHgPBC1Y8n1tZJ8hbMSzkCgYEAu7fXWcv7EBPEe5IMRctsgQpVYx2WohPS
        QNEqoecqc3TWYcm826KThRwom0SCLKr3GGDpQtqi/wQh5iTHPjkZCvauxplxMmFNYNdxcWN3vhn6Op2/c1CKpiZ7dPo52bkYS8IF
        5Y9T5twUH0IgkxFNKZMyyGOWiHZpXOMOvbbZ1gECgYBiou2E3PZ6RPdiEny5U0r/YhFYTv7pYBXoGoo95OaRMbBfcF22HvEmtq6P
        hL2kxxddsVuXoD0X2iZV4wMyhSah4+/laSw7QYiefg6c/fy77ZHAW6kKh7r5HtoQYb67qxglrT/isZBc90pR5K1FJ5fd5zqaXsp6
        r0q/ECRrtS9hYQKBgQCFfHilEd/DajhI+n5I8FpY4sWDTjg/SisHVzHnvlCxuyTzPYtTt9FHcl7V1kzOLEZhmqrDDtQjLN31t604
        UhfEFrvaHGGxyo2yoL5PPRkO4A5SrfOv2cx4wrFeBV7yJ4QV5I/KxZJD4CSN8l1VzJ0vqfabZ2qHdDY0fNSd/63uaQ==
        """)

    /// OSX/sec/Security/Regressions/secitem/si-42-identity.m `_k1_digest`: SHA-1 of `_k1`'s public key.
    static let si42UranusKeyDigest = bytes(
        """
        RuCKBWNNFz/KpKq2WtrPuoQifCM=
        """)

    /// OSX/sec/Security/Regressions/secitem/si-42-identity.m `DN`: the issuer Name CN=plutoCA,
    /// emailAddress=pluto@pluto.com.
    static let si42PlutoDN = bytes(
        """
        MDIxEDAOBgNVBAMMB3BsdXRvQ0ExHjAcBgkqhkiG9w0BCQEMD3BsdXRvQHBsdXRvLmNvbQ==
        """)

    /// OSX/sec/Security/Regressions/secitem/si-61-pkcs12.h `_user_one_p12` (password "user-one").
    static let si61UserOneP12 = bytes(
        """
        MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgEggoUMIIKEDCCBMcGCSqGSIb3DQEHBqCCBLgwggS0AgEAMIIErQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQICXroZdvNyEkCAggAgIIEgNE6nRMmcHV64Ef/h2O6/OvCUSnK7bMkNUh02KEB3/VWvxTmhXHeV+Mv
        DiWTtO0wwrTxRYKIJ7rwZhpr2uLmG5sm9CHt0dDTWArbDr1eiWqjfAoPgyHJu2Y9DKZNrKJnazBweb+rFDcALEDgGfd3qAAtEz+5
        Ya7jPp4scFSHBTx1m8NtZScYN/LX41D5dBRyywwK23CsqWz1wsJszH5k02qrfjbmDeWvLz2EZLNdDq81tYzfhnaKyHS36v86ESva
        nhh9VEPkSFtSo6kewHnybKAd8UUCfaDGSpjHxO+yDP9B7tYN7NkTGvEwdWQnPjLyKSVODSGdhf5vNFUn2C0M9cUMxVkiP3pRzEgf
        y2nIFFpE08E4fS56V3idkpsG1bIv8uOvs4ZPMWqXHEArpC5c/q7ET76FJWP0kLw/vzQW6rLi4B4sfUoq7PD84SJHWtviahUNZNcF
        EZNdf8issSsnuSVpcnEaCa+XiBIi4hGdjQexR4JtTK7qsekCb8WoDbUlAcaHpHzGKjvLTfGbRoGG1z2NfkSGIMgDtNVXSkXN85ha
        0wBgOeYET0el0ByiOjUHnsUWzxdxRS2v/rcpjrGATEPFyu7n8s2boiXYfUiSkcmTHcSysg8N6oceSmxdbn/CQjPNr843PptVyMiK
        gjwyl1rPTP8GJNB4IzcXFncDUL1Ylnx5Kno0xdlyWQdlR2yaLgdovEeqRu5n2jF+eN/CFQVXuqBIHo665kIvQ2p6O1aMC075qlPU
        faprnR4uKGIUGJ1gvflULt5GEpldovKh9RfSTOGyY+wTf4ibFwchpo6PPaQzalcHnsnK3klBPhHoSwCiF3DwhZJTX8yQI0bt1cAu
        OGEr8LiKtoKGSwIsejiY8MakOszONsZ2WztlshWftyXvY+E74wuu3RT9qRtfwZFZLBYYS7OrZK/tGyzZO3aw/5IuftUNgXpwwDN1
        wx/IoEujB5xBGKxsqrz4sjYUy/66NzKovOuJzXh/nawxGslUrv1inOHrPy2Zig375YWDtq0iZpP3dyCXBzC4FTQqSHfICO7+uPYk
        8LoAgq5PuSNRTux4QZBadaYb8q3PwLdGjWFD6q+l5Krjrfx0cyvRriFA7eHW7HRF4+X7fAnN7jruZlnAV2UH/Wb9MD3bwSrz4b7b
        ysDimiwl2XPQda6eQYUB1XFMZzKrKqcV1s/k/wHeCkh7zdhOAJOPCk4GqhqzXMuzARedSOfzmXw6H7G03nlKAaybQoQNULZz7n1a
        RWft/WWnSq+km5NCD1C66WmGd3yh9+GcjFNDzKjtaqpqtaspyCqBeIhJKYT2PkVHPVmkldGQt6QgSD6+AULbETN5n0BY2YaBHUG1
        YxifVOUAfBz0uIqUkaBndcylSeIA+5rJh5Q9bu/lpXQEMrNfmN4M7DKpeiXGII8uYrW4j53tqpFevgFMF3bJrzv0o6OSg9Z0JWYH
        epAz+2WlLMkFsNz4MNtF81fR87oX7zP2YmVsSwiWBJVLbb4kjVPFHAFOjj7Zk3hXpy3FswhgV0GgRd3F8TCCBUEGCSqGSIb3DQEH
        AaCCBTIEggUuMIIFKjCCBSYGCyqGSIb3DQEMCgECoIIE7jCCBOowHAYKKoZIhvcNAQwBAzAOBAjap0jX4qejigICCAAEggTImi0j
        urXNnprgy4fpzcF7us+uuxyWelZfsSSquzMblcIkjnBL1eCCkYxrWD2ndNsi6NHj9eTpflcZgblNSfJjcomy8AYilgpRr6maqZmA
        6Gj6ggPyE8SDp/CpeUGIrzEZOYapHYYvcIqlIr3XNoPZU0RsXdh0iqKBVNRM03tGG1DqCoP1OJPn3VQVa2IKwDH0HoLY066ApMuj
        3Rv1+e6GNaDbzJ74yOuaFTwn11zdrj4VEf94ss+g7HY/BbUwUk/JG0wSZKYgpC8gS98smiR7SatMWAks30mpJahMokazFDvdceo5
        7+HHX+pAOz4TOhEErMfwIyblzvBC/nYZR4WYty+j/W1Z7AW2HblLlpIMwjU30vC5mHrMROFwXaE9velyRHHP6IpqJg/IfdbzGf0P
        zsYbiWDlOPk72XPDgnRJF3OUVbvoBnYgjiofYMzrPiG2vdWOvPLge0m0jT9qXTUrmOodIGpR3aSxE1YuhUvZ/eCDjv1mcfDLyH2q
        CewmYGjFp1btizosz4A7R6/vf7iBptbUE+eqjNmp6Zosi/IZdcA601RwCsPm37vxBsZZN1tbIiOQSgXLCKRBE7K8uM9dmnlX+InX
        YwjIpdXVif9zuQ86Z2ifwoE7Nortgck43TKvnsDDMnb2uhpFjYHsxbIOQEct9i3NqrgeHFP/8tvlkXDHDNYzqZtrN+sejmkluVW4
        Gx1cfRnzKzqgq5rlsNQBhD/z3c+lmnlN14XAaCUeH0UlcnCwAg/O6HRepSLtNqs28f2MN3rERZRSOX5q8Scb1iDuwAJu7Hi1l8vD
        5aFK/Lsnx0qA6voOeGhzBJGiTrtjv0X/b8NMua7Am4uQ38Qb7qf/hf7bgBbofB7fo7sOg8XM81k40mra42aA9Vc4hgdLeosdPYWi
        MnjEhexckowfqXhf1umy7L2sWN/4d9HU/eyXzgyfq9zsLLpz6w9ghDXI+1uPKTJI4YcHKtwDlS7ti+afEgH4SdXsKcYL1MpHHX6V
        dfX4BVdDSW1Zd5uEUUQWB43YqPGDoE+Ah6WmpSbgsy054r9go4fu2JhVsmq1/ThShx3NzJfu+0u0PJxvjNbFF+dtgFWLNKXem3Ni
        IiArwKTLz7Pw0dAgcvWimb5jf3L27YYPSRTLFSFMl01gHAWc1iNjEV1Plqk2jJeQE/6OqedXAnhX95JRdEPX4tm96VAJ1ukSO4e/
        Glc6GCYRv6lwowKG3qjhO0f2lehnib951lOEV5LOAORqNEZZpTJQoj1g/xNN80xMwUUnHYFFuWlQHNZPgh39CRmRrPMjlckkvZc0
        cxN+PxZzAVcxpeQu8hroJl6u1HFP+tgRgHHPaElt0SqXj0VRhO+Tro/XmiYhiKudqCksMtZEXGUTY7jUIwPEIol4CbZ3Lv0pgkMh
        ualEL5KWmiwIMSRLUzkN3dzUzSn3xlu0IpCaVEYxYrWmNJbuucKZSDL4ZFm5NDUcqCU/6JIyK8XsXBu9SyvDdcbAPM9D6Ztb/Bs7
        Dxo6bkJa3IETkq+uwd1Fr8YX99Txt/saRzIR4pRJnt2Fs0ZjUt7YG3IwDkc8rMv+y+jW5v60c7/jxVSH9Zwh+8tIP4a/uUX4HL7e
        6zzOKARkxQR+t0HYwddf9AdxmH5sMSUwIwYJKoZIhvcNAQkVMRYEFHfjr3qgJqBMZamswswno26/C71qMDEwITAJBgUrDgMCGgUA
        BBQKSctP8j3ykpMvMpVuFzPSqcPuxAQIvsZEQimW71ICAggA
        """)

    /// OSX/sec/Security/Regressions/secitem/si-61-pkcs12.h `_user_two_p12` (password "user-two").
    static let si61UserTwoP12 = bytes(
        """
        MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgEggoUMIIKEDCCBMcGCSqGSIb3DQEHBqCCBLgwggS0AgEAMIIErQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQI4rMJacKZDx4CAggAgIIEgGqJZd4a9tS/f/DPJdDIGjGjwbYZ53y7enEFNnjzoX38TrmtJ11/xj0J
        HW3AnHxr/QSsmTE8+EeHzmxeGlUjyCD3UGbeRq7rLhpMsOopWm9iTQIeyUWLTMn0QE9QmjntPI3AV0rN0DM+ifwjLXNFZFMHDsbS
        rN4LYctWXmhXbvF/HWLD9nWn27bxA0LWL/bNtd8VA0mhANUaB8NCJ/OpHs0pI8p7U79teech4LsztiKl0NsiRaUHb6OgYQ3nnbXi
        DMFGS2VBDOE6k09SnkJsn4pqf+8tjkO/yOhcSonSzbOfyZ7+EEbdkJWgeFo9q4vZlXgGmJ42QFsGAoA7LIaH9WU6Uutgyb7Gu4Lk
        W4oEKGqFYjhwvWkwn44jyeY6tHsFBPuuaQv6leFqupfNLDoKCPbXDs71HqZbHi3VqGufwL3wMpvve3rB/OLBwMyOlo7VKi4n1G8y
        mGdB6+OkpxTMy/m4zx+XJC2xBBfeAi9UWhSbaaTSfbj99Wk6PI0x0B02wJ09JhXvr1UH4wGD2OTRHv9557tPLzh6NYsaz8RNMbpe
        PmCA78m2Wy79SUYkfuvnGvBC9YEOf/9ocZ9b7vztdvSoJz1Hd5D8iH+Gbcwf9+8JfSXf5N+vv/9VUkhylAFy+lGko4tmNjvf0eT5
        BHe1M/lZB3rmow7KRfjrJpw2HsWuowc0tb6vYy67SmJtANkcjSzQlREHPFErQCFoE199ai8DIJJYqq3TzPxU12e6Aou76z2b1Ipq
        Zrz40Q9aCXOUZOovUzJjOGFOLQKkZaMLMbodj/VBTiW8c1KotBom8UVo8kd4jwLle11yKrma0XX4J0eWD80AD+oJH+9kv0UwSh0k
        NSj6rSpBFX4EKDgKMdgNJn1hxD+3E+lGCTB+EFmQbXwMND8VQspk2IPD1ywrM0jBq5m6MUSWxgiE21Z+lIUYkJajQevm6PWUey0U
        qmGr0UR9NUR+8RIyw88Qi4OPOZYby2Kf4uL+4tEaOE8iZaXhuUtpJAC2slBUU8MnF90FhgFpeJ617IhU+1V+X3n4FSkkSVUGMhgP
        6yNi08TBQr7GjyJPse6eSydXDqTvtMpLHi3OAaOhzaTnl/9OF55poRcI0eYUHelfx6tcJgQHEg4GHyMFzjcZvysUW3ppORqzmj/n
        Zve4wPMgvYkjHU456PEJDfQpPpAAbrHThlZ+VM6GTXcv5AJrGwo5X5iLJRsDcgi6k1fkyDQG3Brcu2125CddD1TjELLeI+S9tNGq
        Cn+0P8+jhFH2pHjZqpU/f3HqJCEPAYtuCCkkqNr5dvyqBqL4pUnwhfDrSIaBFIGd0X0xCVtHcCi0RfbHSXPVEtdb3KTcsQi+FiiS
        KG6k4Bmk+afCvWuv2SeOs/bnlsWtsx2tUZM4oyQrFkJJoBVIhvHpt8CmLFN5RPCDsPzfpXztWPNbZDtGPCAb/qGjsKA8Az0l60vb
        VZfLOM7X9dYzRd/2gJrABx0upfWxS5mT+fvNDb97PFaFGw//DazoNuVDHpmcQmotq+PYn3UehDgycuAsPjCCBUEGCSqGSIb3DQEH
        AaCCBTIEggUuMIIFKjCCBSYGCyqGSIb3DQEMCgECoIIE7jCCBOowHAYKKoZIhvcNAQwBAzAOBAjIPaVpN9GMcQICCAAEggTIdifE
        8dCVglPyY+901SYVY6gENQ6VsgnzK80wf56LqFxb4fK/+4PYv50wA+bMqM0svW6ZqY8mD8jLghxlekngINH3IoL1awe+s0L0+XJL
        8h4vy4DEUlIBMgtIFT4zeyBcqpPuCGPyTod3CM1jHFiLtM1BnG4EClvToBV1EZFV8UNzct5yGSpPp7eyYBGodcdj+n900TmpCnv2
        1k7jQl/wJ7pxwk6ekjp7qsVVH2+7CA16DBQsAm6HeMMR/Ch4etW8oVNgIVhhTNxzUUdOxdKBt9DLjp9X/B1BZTatCAr0Ce/7xz6x
        fDi0SSvRu3DvZHo1r3P6yvFL082xnjWx7o6rJCNSzRK7hquICx0wtp4yONifhQ3E+XObGCbhoVuIzYAbZrVx7bgWuwyyFgSnKpNk
        eiifwmHwPZIeP6YQR+QVH1YQtvwi+9JSaeyei/+bDhg+oxep0TcVJqBaJFdm2k3/B6mzf4E7g0eR63zyS0hjXymxWOp+DVkaHD//
        LLO1nwyw0HakkL6Rv6QiB70Hw0gKXFp6B/E2OuUFZi6uwh1Fcx9p9DT7oSdINEkDR/zbO+FPE3zOYsXyhTJjqFWQMA531RjiKTvw
        7yR969qBxpGhifNuB6mLn5Fz6reTZv1tFAiyRPJNwlv3qN+VGEvWPyzMUI1roWeBxhlrg/K8RhpecD6gu/WSbR8ieede6EBH/oLW
        sIwSm0wnIXa71mZe+sdLXXUqJh68/PYLnHohf45rSGFzELwFEBcFD9ik25KbiUa2vDEEEJtuwrh21xJQjZmokP2a8WlG6p4MovNY
        eJmB2mwKipqU+EucJOR+K0hTDzs33rdjDWlrR1P7V4bAMhFT4a6yWi75srjOtuPd32OjifpnkGPa0sLt075r4l/qQbwkp4pQqdtv
        eS+uxn4cUMEOkgf705veT8Gn3XS2Kj+7gFfa516bN1bWh+F8AnX7BHaIiL+cjTrurICgOaygoMbrKWzX8Zj2RsPwKqxcI5FOGpDJ
        4F2J+XQhPrD8hBEq4x+gLmz4r+RoW2yPFdTGAM2lbk2WTg0Iji8UEq7Ek5akf45xWd3UrEGBmSNirTXEq5qnDFbdjj9ojrFSKncA
        vtAot0fKTT7Z2yHs+teptjhpiMa9aKNDelBhdnGWyLsBDdi5AEW75pLM3IX+VvOs72uiwgMZ7OPRN4wVBytzZdjaxO7pZ76Kn8d/
        c4tUUheN/nOYLp9ZdJyGkgXAGvo43LUpAO8nGpVrDI2WBNpCaUeXDTifZf7vp6RokkeOXKFsSLn2uEvPLtDOJhL+KBmw6hyP83Jg
        aUZ/xLHBpLwSE5m5o9wPXtq03W3di4nioQeDOpFTipT0IBevJuIcKmBMWTJyalN1lNcxQvNTzkqqJA41fWmGOkClrw6msVy2c1O3
        LVOvwFM7bZ4JYo89Sd4HRCLu4Wx837yu/eFS1YemyRHh90sFMZIR9gghhf1AYhTRInhsrUqtJaP1BTvskm+5N3GiT7h4EUVTmsLh
        Oxbez2Gv5LqUBROcoASyHdGICA1PCbDLp1Cg0IlzePtS9cJL4PqUHwvysrxVXP8CwrkA2m+2n+E/+f+tnlnnuBt2X6C/a8DN0ejb
        MuKz7rL8RBILrMd0z4CoBQAuMIVEMSUwIwYJKoZIhvcNAQkVMRYEFIGE7atWEZBzejCY6dSuK9rrzw4AMDEwITAJBgUrDgMCGgUA
        BBRl/jLRaCkzijEVC0A88cMXEK/y1wQIsoplhS3M11oCAggA
        """)

    /// OSX/sec/Security/Regressions/secitem/si-61-pkcs12.h `ECDSA_fails_import_p12` (password "test"):
    /// one P-256 identity whose certificate and private key bags each appear twice.
    static let si61ECDSAFailsImportP12 = bytes(
        """
        MIIH+AIBAzCCB78GCSqGSIb3DQEHAaCCB7AEggesMIIHqDCCBN8GCSqGSIb3DQEHBqCCBNAwggTMAgEAMIIExQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIMrEBd+uVArkCAggAgIIEmI+gcYqadXgpfslUmLpYf2UptZ65w/2f/EMxCHNFA338lyCPsUyFw+na
        +HO8d+X/x+90wLYYqXYsACwAn8s0FgvwEXzAZRxpUbuShr8u3x4VrR9m316etPGbhg0P5tIBkQ43Q7pa8048XccNFDjDShCaLfhT
        Lf0AqSvRP8T4mbaqH3C0L6SmBxqV0ZPx0v4/fLBVGNWfNxE9LR+4yEelA6UukQTg0BVwogWscUoJk7tE63gge7sKLwpRXBYyN4Ke
        yJCW7ppOdyH9N4AvVfIDsTF+m5Cpe7QZXRD9IqUHJMXahh69SqbCAnGlPcpbGV22xH3ndPVx1eWfCkoBoOagc5OqO2wDTL0yyZev
        hHk9k0nGvCpP4T6fhuPSFtOz9qw8tGqmaLj052iY5vZ2QGTrleLMi3ZKq4OphAj3Q5LLMdEKkIuYHWpFf4ObAY3oJZ5VrSd+If2O
        yCYfQ0QGX0S9WvMVrBqPx1pAqZMJ3MTJ6ULw5NopkGEyywV0YXFEuz+ZwyUpjKHhkub9VY4iN5UIWdyifPwSml4aWIoUp5ainjXh
        HH2shh7PGjV68TFGZ72BnPVwnq8PhBDJRs62xDWI8OGmJaXfTV4QdiyjhUIT4jRXzoqWHxt4h9ZNZjaOLMaLClMmcKV+fH+Ui4l1
        MhuNJ2+xZAehvDTkm7eWSpuW6sFME6go43DdaCv40uca7DTSznxpxeTemI0dVCESJS3/vxyXASUrvq2YStMZk5wD5qTrbBidrszE
        uCQtoMFwo1wvbu4cZmdD2FAj6Nm4JJg6fc8Sia4aESapgO8IIPARlfzo/MNKi1Uu+JNs4YLLM+b6ocIdJqE4whJTUaC/qRFXGBqU
        KOb2cUYC2R4cB/SVufsweaaK4A01trRP3lk1fBr5zEJAulgH1hAgfaRJF08Dpq8wvVRrKsNlmHFszHVO+2gUnVDiT5NILMM3bH5q
        h09aAcwXVOfAPbO0X7nxy1+eSKIBgrDZAaj5rL5EI7FDheZQZID8Yr3a74WycIoNWmLazLPBOiGgCfpkefWltlIotS+9m5iuQjIV
        zBp9pu9K+AlyPsNpMZ9LMnNfv1/Vw58ez2sM3jJXHR3A+OmFjtD0hq36UQftHLZgj9xyYTYuAvnlPhQZpTC2Kn75vJWCDxthpa1Q
        OKH+qNCGaUC5giG8JpuHL/Y5nApxDVRoeMyBrwnXohx6+/uu4FkjC4panEydF/xSZkO/BmxWP92OMy641+0TRAVbv0PH/W5B9Ljw
        hHNg5HIkAOzfGw1XJgSgjCUS4MYUDmnCyENTxmZQlilQbasCKb0X2tRbvrHomjI/ORJLArePZMokQyvuBLu9K58cZuBqpdQOP16t
        5cTNF3FXYuZ94cHYPjgwMUmwjWSAVTDEOCKtx48avTD4KczcFm70LcQESZog85rZqzHktArOTv/d4HVZ5UAttbquc5Eyug3zSjij
        DBHSbHWAeuTVmEcFZmwunZatmTDfwlRaTcMhgFK3Iaiz1ubyr9NJPv+ywsmLumNs+Iw5FlJZhiBQOuYPQRNo5w8WWDj/tiZpQQfr
        IUWq7a7q9toAcjCCAsEGCSqGSIb3DQEHAaCCArIEggKuMIICqjCCAVEGCyqGSIb3DQEMCgECoIG8MIG5MBwGCiqGSIb3DQEMAQMw
        DgQIOuEWlaFFEqICAggABIGYVkpa1PYvXZE97TghkCrhLW61HNmwiM+5xzorIcP2UZEM+ymE0WJfde7msINLnlV73dOcNh/oCiNO
        Xd4RcSb9jVuonhktvCx1+guiTOUH7WuVPXUSsuzFIF77XAtoNR/f4KrVkyc+ou0/bSzAb1XwIab6ec7F1jmmBKhKppXwfudU7rKI
        4mZcuF07kDJq+z6ji2uW9kJVs58xgYIwWwYJKoZIhvcNAQkUMU4eTABNAGUAcwBzAGEAZwBlAFAAcgBvAHQAZQBjAHQAaQBvAG4A
        VABlAHMAdABTAGkAZwBuAGkAbgBnAEkAZABlAG4AdABpAHQAeQAxAAAwIwYJKoZIhvcNAQkVMRYEFPgVLRVrfSjoI4i/uqI6PpoD
        5saJMIIBUQYLKoZIhvcNAQwKAQKggbwwgbkwHAYKKoZIhvcNAQwBAzAOBAjj7xaWRRblswICCAAEgZjwHTWR/BZDqh2wWBLeaZLQ
        rJa+x7u4skROF9G1+zbq1wY6DpqqI/pwUbn5kHi8s2NIjISyopjJcUaCQp8Pe8y+zK08MNsdNMyJkWvuL5x1i1X/LgsdcV6xorJe
        fkg3LwhnkZrxBRx6f+5vHlvZfC24CXK2Wr+a1yM5bx/41XJJ6qtLoMujx++4jNpMCo/rf49C1K1FctrZxDGBgjBbBgkqhkiG9w0B
        CRQxTh5MAE0AZQBzAHMAYQBnAGUAUAByAG8AdABlAGMAdABpAG8AbgBUAGUAcwB0AFMAaQBnAG4AaQBuAGcASQBkAGUAbgB0AGkA
        dAB5ADEAADAjBgkqhkiG9w0BCRUxFgQU+BUtFWt9KOgjiL+6ojo+mgPmxokwMDAhMAkGBSsOAwIaBQAEFAb8x5ivgXWfJQUMbXis
        SzEjbJtNBAj1HoX1VPYJUwIBAQ==
        """)

    /// OSX/sec/Security/Regressions/secitem/si-61-pkcs12.h `_cert_decode_error_p12` (password
    /// "1234"): a client certificate whose critical subjectAltName's BOOLEAN is BER's 01, not
    /// DER's FF, and its CA.
    static let si61CertDecodeErrorP12 = bytes(
        """
        MIINLAIBAzCCDPYGCSqGSIb3DQEHAaCCDOcEggzjMIIM3zCCB3cGCSqGSIb3DQEHBqCCB2gwggdkAgEAMIIHXQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIa4BK5IuaggUCAggAgIIHMDtZ+B1J39LIVGPaXpH/KrlfJS6eNDukT4k51LjMRgtVHtOLsdbDdKPv
        t7pGGES3aF8h7GpwJfMj4FOdnsnnNqJ68DwE2uSs5GCkuX7/eprwGjY3kujMeQ2U05WE6lCj46RgRtV35F+na/POFin5zHxnDVef
        Fi2nmx/1Z8I99DhfCRzYMdGqkqf/f5P5u95VM8qeVS4hfOJj+TXNQrBbtr3DEztVXNsd0aX7J4CltCnYycOHtusQpcozHVXrlEO3
        nU+eTlq5Us0lT0WAYQYTMamAgmNXkBN3+p20AbcNLVuHY9lWlgcL/UuyFk8BHURRM8OUQoUeoELj4ktazDOD2XfqO4freLUNhawV
        hYwRwnKYFAi+xFnTrNqPsFc4Mm6OJoPnCxe4qABFaAbSZ5egwdYwxCc59aeav6YkmNzPqdkzNCjfF0kbIVb/RC5+uXKsJRN8+C5p
        rqOxpSazs3kOOZV/Yx6MquCA53BXcDYDVyl8yvnuuA4XOS5xdqrQ9RfYQv/uDfi4OEq2IJ67gmNyCAFftYt04aLcej4afE9NKmMd
        6M4mva999LZbiHfKK97F26LbRIUR2uAX/mhCYMx6q7cufGruMFkE8MmUhGGpJ6eBIfRCaFjpvnKDRtQSv8hwh8YlOOwf6efI+zvb
        +sxOUPuIBRNZuooOzZEQPsr9elcTFI8DYDGOCwzsHlVMhyk1bC0odk3J/NaOFQKrR1m/43z9HhGdUyq3QfsIi5Wvbl9HAJdbU6sm
        jx8bX1MWiSGpOQAFop3Y/62pCVvi2Pk1eauDEO/pVdtwyU8nJATy+GKIqAKFhIreheBhbCCp3o2vmZjerFtNCP8dskRr4EkEVwlU
        WdXiLk/A52wCwZOHpXfvo8nCogxMYt73W2qEfqZOXqaFeycblatmGzqvcgcK3yjNms2uwhyf27K8CEFl5nTOEvCKAzZijFuZ3MOj
        K0IUhfconGvwin03cKKYGXOsO0j4+D9tMWPW9OEZiexdz5CbO0VUjcsrRDJGcKBqDE9CX0Y0KQSibeUcoq1ZdQOwXmSopYSTVqIy
        +JZA83KFssErs7V9kB3EMx/5nPARPsgdYZK1bqEPOixBsGd3fvQNsw/hgJdK06kj65WMQzQKNawV6BODqi4HpsDOfirY1NS/9Vzf
        VRAoG+r+bf/pUQJ1SiJc0vOjyQVPlT4ZpvwZkq3Ws3WaTvbRxkhv1nohN266JVci1n9gKGQu67q4Nlbh1ammQ0zpMjjhsM6L8n/u
        Z2cWinSSMj3BmnYissRW4V37wo3UJefaUtHkXh/o+p0rPsUr19fHAc6VZ5NJQuHSF6NLbsDelqnXB1j4q+R5SRgS7l+pEu3+SdYj
        /djz5oRcS0/EZk0mtfbZNvYPjcIXFYFhua8kcSO1mYftJstNCGg1B5bQAc/lAt3Ha8zJqyUYTHFEl0cj+uRjbjIrmunxxn3SQbC+
        b1odqXmEHHa7djK0i6zHOJX9QHjURNX8gGNuvCr1O/zIaVn+olRfp7zVkuuqGoJ5KtUJy8aDUNWWCORq+IgYnK048q4JNNvUK1J9
        Eb3ouVTlsEd0BPhSC/AXFGzJuFOBVrhc4n5asLjNQK2M/TvPlmLFXXSfzKIUh9uDj/Ogr5bOatX6cm0ojhqJOEc3b/fwzp+ubN/o
        jE1ImJfRLrPT3Lvf3yezqsl44rL4pYwPHfekiKinnvTGhHTU03Ne0V7NxcU+HawzxUyl6EeL6ENcCdZeuZoSLkdX8c5PA7a0EcNb
        6VYpLwXvTL6z3wrAVe8X0wIuzJmrJBOwEaGk88g1wtUsEiRaIXae2uBRFQYG/TD9gBwascLESt6V8JL1eDrd7Nuu2X8ixlZ+kq+0
        78AmtJaThg2nsEnOi/nl7Agqpp8xc/HGz1z4cK4CrfdBqe5ZsyEDz5lWJoFKQPV9svppXDbyWLDSkM84Vvgn8Vq6vbDnDu6ORSc1
        Hogw3LkzojCCRmeP3IqTD1caqInMvq9pRdR4Teg4ZPzM+SEIj+X2iMN+HnzKu9+D84ICCMqUpeAt5M+i2bXZPJ7PKnhUQcQX9tqE
        US7uO5rg5nqhTy2zy0U9ccHotjejT4ZfC5t1/wJaxwHTRIRN3x/iD3f2DWTbfH4eSmuRpNAlZ7Vy8j35PU7ejTLKaY3fKYQZq/3k
        jGql1+ysUB4MsQJ2z+Dljk+C3dWVdYgqyix/NhbGuDafLgp4iHdk/ZokSRQaREgkAmUlhDPltj/2QxeH939n4WSi+CrcivbxlazW
        otlQKWfrk0WPrSPLKyaQokUoPh7pv6pr3INB5PENWmbZ1kHQspw4ecmhk2wmMHQNzSjJG8iZfwYE9TQ9gBkaiEnq5sa35uQo6YpP
        5WF101y4EBuphdhJNL6CoWcmtylbA7OtnYn78sOotkebTZqmO0VX1PaUWj3UbahJlx1mnDc6XjjhgWQwfYbHrK/hafnOkL4+b4kw
        ggVgBgkqhkiG9w0BBwGgggVRBIIFTTCCBUkwggVFBgsqhkiG9w0BDAoBAqCCBO4wggTqMBwGCiqGSIb3DQEMAQMwDgQI/x6zOuyo
        rQ4CAggABIIEyBYTJONljNHn65o40/Xen8VgVqKFMZxRywyi8Xmxvvw+NbGYNUHJPlWdDR7+VLsmeWki3TKrMJB79turEOHNj1qK
        RpexPWG9hCT5cEsOQP98CyOnRoGTTnc/W2WBxXSMqUIcYhqyq287pFBjcjExo7dFJF4EsdsQCvOGJHEByKpxSVOe2EnXWIjqrBpn
        puZNOFRvsjyc2iElgIHr4UQ7qmfCN2aemPnJhjQAwXXWoBulRrk54n7YcZ+hY4sFtShefzqujhFNZQGsjXpo7QmxibdGdAZbJnl0
        UtQKhMK7YXHc/cBgRWfB2mJvErDdx2cPFU6YxyEjkKclvtFCxoOKyl8/Io8Z1diowzggJbY8TChWpiLTHyFgfDQtezbZFBu3Hyjw
        iid+7ziWfWrxzzJNDdDS1ZVcoGdF8NlTPxJ2HeWooEF1tnQbm0SgsQj4HQGCBYrMwio8UKXs7YPzmqXTX/9BAindnyUsjBFs8Hpo
        mTXwXwNqTQNKvypM4mIya0H4ZfS5HA9GAAUIr/pjAuFs5aIA7GU5EVS5XNe9Aqgc6bJ2Qbmbh2tIbe5G0l/s2kqc8mtF1KjXnTlh
        axm3TZ9QcatkXiSiiX8PBk6E6jRkY8y6jnMf3/+nrvska4RJbITXkXmoj8wr6s0w0hnsGcDJKRdNZtfPZx+XISPYB9/dOTFVpEXJ
        AmtuxcELTMSpq5CleefZg2l85COSdN3YpL9SpWxH8XbJTbl5TK4TpIcehX58z0BkafoZIrGTOG5LwyAdybdWi3+CysZDUbcI1InN
        WqCR9CQxV4cAkHCe0qYUT1xgL13piuZ4NLR392DViCQ/QmH0JvhxtSxivSUR40+lgNAzLD3jygirtIbYr8/XN4MhABzhLR/qxelh
        yi7hOLVv7EBIVpt3SuLktVC8t8tS00OBtJvM6oaleZbgyCIPwt0C0A7gAFy1zlGV+/9J9JXhTUjLkLrIXVUDnB6qUDPM6NBUGy8W
        dtskY3RLJflx+G6rnTEepMZP9qgHkNdp5YUsh01H0mybQz/92VmJGo48PKO5b4wHLQLAZ9lbTDlWq9kbmEn4osTLP1+uDsQ40YHA
        +RSJtVna5EdoGny5HggFjcdwPVnDPHg5johSZbl4Tk4aLhc4xBojwm+rJbxl0hZs89y9bQm/RN3obXHcaYRNQ4et7xzyEruEQFls
        YiHtQWdhUTCndiuVNE47d2J3TrakkYoB1JWoa7QV2ngb0PlLk2Etm5B6hS6KiPtKY6fm9hZkgEk+E8VZfLu+FvKr+gBRkiYWWnYI
        nSTGddlZXACDXz+vIuAeE4H2y/0IktpDw/LDGsz6JBsnwqj+Ro1ouUqqe2SrxOM24n8V7r5X9Vf85i6S9sKcYUBFMjTUyoJXZxND
        aOZ3GDUyJqe92VSc13tqGa8pU57Oelm0w0wZTbhe0NkDzbiJYP+O/dFIQomImabUvTIu+9aRU9sRoY8BI3yxFMApWB39w3qdA90K
        Ry7NAKZ0kBInGCdMElUt2G8nkcVAM42FNLCC91UrF23Btph//WMCVt6gSVEF/js4dCuNpuO2bOXZBlBx7tK/HweWIScQWt0HoL0j
        w7aL3y41AGzcC8r88ArRBC2XNOny9Imkc0m1ivS50nAmtzFEMB0GCSqGSIb3DQEJFDEQHg4AQwBsAGkAZQBuAHQAMTAjBgkqhkiG
        9w0BCRUxFgQUVIgkAmoNg0XmwYdD+6EslRP5+UMwLTAhMAkGBSsOAwIaBQAEFMt+8TnZGkaQd432gwi4x+QzJHx9BAgk8/mZeuyu
        ZA==
        """)

    /// OSX/sec/Security/Regressions/secitem/si-61-pkcs12.h `ec521_host_pfx` (password "test!123").
    static let si61EC521HostPFX = bytes(
        """
        MIIFeAIBAzCCBT4GCSqGSIb3DQEHAaCCBS8EggUrMIIFJzCCA68GCSqGSIb3DQEHBqCCA6AwggOcAgEAMIIDlQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIbSfx0uIZ2fICAggAgIIDaFCH5ewmac2o2NcPWzHG+g88YkdBvhOrClNh5QxhwwvTZM7nDqY0qtaN
        jqhvwcXVT6FE+2RfIa2AT3RQkGwW6wqYoXEtTGD0aBtPiXT72t9z9gl2NHwlL17Cgdw1CCi4hJs7MVKZE/R5LcVhfotVcDf5wcWo
        xtZLAaeZSuLMo6bqS7IhCDvfSbaVz8rt2FmMXe/s6X/AyuoM7iKRNWk2oh13dK7Alr59YJZx1IMp/LJihR4YFaPyl9v1SNYrzTY/
        lg7qP0ouExmpxjQDuGfYOWsmoi5aHjKOkugm1UFqXxRXfW7GvezBHFSGmt4mcSLIpEg4JFzVRVpokR5/2C/yDwdO4tPqV9HM2Aw/
        X/Qn0MZfeH0mxA0zD6zipveYCKXnhZUtqGUMgP5EjP9X0y0Jv0GT6h3XvbixnQgeT64V+S78/C8P4UT7rAK5WGVsepatmNqv+Zki
        g/5THpauXIlhaEZ7FTue2O4p5pvRFp/N9wmM1Z7qbGMxW70dc8qIJaJ0YXiaMGUcjY+wM9b0JaGE6BYpdBF1Z6yq0Cb9Z7VFSsBz
        63Nuc6HKZkWS3x3C8p6Pfw4karPP6ALM3GHSNEk+tBWaaBvVCIOY5a6t4Q0ZJEbaS6T3X5wHx4mQqI2VKNxHvQ0rj3/tIN1owWM9
        jXg8q5HTlIRNTfhW23Nz43mxvAaYA1C2vI+JjNt0olXIYa8Ex4tXqWNg5QuURhXboDUtaT8gnGUeY7LS8gPzSUuMwRMeEDG126/D
        YBix/QgjR8wLVX+SK8LtvQtZJP8c39dQK8EeSMH9WHkYEQAMx4UA6W1STfqAcWjHp9WdJXU6ZJVyW46te5vLMj77wE6bF/d+7KBg
        vFrt+357d6PbukACRTPPL9B5VpnHGljNDlqEic7Ae9FibREdH3rfyC13t2GGXtdq4uyI9xrEdQkSpyEv7l0q1oTN8S0rETO3/m1K
        4k5qXsYl3neYMmLR0on+pIZl2XBdPfpCy+zjpZVtomaBhwyQdo/+VamYiv3E0f5yvDFxjtaHk1fCYmYuT75fySIVhdivdVdd6+Nu
        5mkWRbKr/PRLhj0TcTP94il/3Cwv7cmQHlUIkVVkislvMwCYqx2o0iQqqtUgBGnsN7BEDAAuJy6MqyAGnYoRjwVUXxZitIvsiG+w
        8U+QI3H7MIIBcAYJKoZIhvcNAQcBoIIBYQSCAV0wggFZMIIBVQYLKoZIhvcNAQwKAQKgggEdMIIBGTAcBgoqhkiG9w0BDAEDMA4E
        CMK5oS9MGWgSAgIIAASB+DQPK2cJv8T5kXbj8g4jVlcwMH4aYHrTV1HwZ4Pe8GsafNnUSOagf97j1FXLDc+LIQ36ZaHLAW+B1A0c
        vaZLvWzpo2+0TQfBGaMUzTna0KAqYhmHtnvm1NV6cOg3mLX+5c9/sb4AJ4Ot/EZkkeRMb5G4xPSNGzHbUbrFnLBG9TMBxPcnHkZ5
        pnaHGai5Blpv1Bsl2HU+OkfeVljU8SHkG9yqgkDzUDqcs5OVp0H8lEFoJyAiLySzrnFlO5uyaZW79baJEPwMukMWKEppPHXcf5Ui
        AFG+aAf2tAAYrG1tydlmpuMIW1Q34HnNpSMamt3x35e/vuBTgA5jMSUwIwYJKoZIhvcNAQkVMRYEFBHavGarhoDlSXRH2lqEMWkK
        SaNmMDEwITAJBgUrDgMCGgUABBSlTo1nAZ8bVWNUpwl8GnZIzRSEyAQIvQiGLOl3q68CAggA
        """)

    /// OSX/sec/Security/Regressions/secitem/si-61-pkcs12.h `ECDSA_fails_import_priv_only`: the
    /// P-256 private key of `ECDSA_fails_import_p12` as SEC1 DER with its scalar alone (no curve,
    /// no public key).
    static let si61ECDSAFailsImportPrivOnly = bytes("MCUCAQEEIHn0OFw14Ze/xznBLkBSn9HwE6aUxdw7FFsIESjFtsTX")

    /// OSX/sec/Security/Regressions/secitem/si-41-sececkey.c `EC_P256_KeyDER`: a P-256 private key
    /// as SEC1 DER without its curve: the scalar (bytes 7..<39) and the X9.63 public point (bytes
    /// 44..<109).
    static let si41ECP256KeyDER = bytes(
        """
        MGsCAQEEIIaHeVnRxjxQJDCkr4kd0ZQjVnlGk3IxOSTmAZbI6/OIoUQDQgAEjPrXivG5rdc6M7WarVINFNZrNVZ51nQqN34vM6ar
        7jUAcIKJnPyXxIlcFlCtYFWmcO4HG/7k8KBjwHMkl5IExw==
        """)

    /// OSX/sec/Security/Regressions/secitem/si-41-sececkey.c `EC_P256_SigDER` (also kc-41's): an
    /// X9.62 DER signature by `EC_P256_KeyDER` over the 24 bytes of `EC_SigDigest`.
    static let si41ECP256SigDER = bytes(
        "MEUCIEs3f0XQXaZTs2JvMtv89juE+lrZF2cDc0gMrYkTaWGzAiEA1iOv2X1yujuQwSN92yzRDbu0D2cm/z+mR6QTDeBF1Ws=")

    /// OSX/sec/Security/Regressions/secitem/si-41-sececkey.c `EC_P256_SigRaw` (also kc-41's): the
    /// same signature's r and s, 32 bytes each.
    static let si41ECP256SigRaw = bytes(
        "Szd/RdBdplOzYm8y2/z2O4T6WtkXZwNzSAytiRNpYbPWI6/ZfXK6O5DBI33bLNENu7QPZyb/P6ZHpBMN4EXVaw==")

    /// OSX/libsecurity_keychain/regressions/kc-41-sececkey.m `EC_P256_KeyDER_priv`: `EC_P256_KeyDER`'s
    /// key as OpenSSL's SEC1 DER, with its curve.
    static let kc41ECP256KeyDERPrivate = bytes(
        """
        MHcCAQEEIIaHeVnRxjxQJDCkr4kd0ZQjVnlGk3IxOSTmAZbI6/OIoAoGCCqGSM49AwEHoUQDQgAEjPrXivG5rdc6M7WarVINFNZr
        NVZ51nQqN34vM6ar7jUAcIKJnPyXxIlcFlCtYFWmcO4HG/7k8KBjwHMkl5IExw==
        """)

    /// OSX/libsecurity_keychain/regressions/kc-41-sececkey.m `EC_P256_KeyDER_pub`: its public key as
    /// a SubjectPublicKeyInfo.
    static let kc41ECP256KeyDERPublic = bytes(
        """
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEjPrXivG5rdc6M7WarVINFNZrNVZ51nQqN34vM6ar7jUAcIKJnPyXxIlcFlCtYFWm
        cO4HG/7k8KBjwHMkl5IExw==
        """)

    /// OSX/libsecurity_keychain/regressions/kc-41-sececkey.m `EC_P256_SigDER_LargeInt`:
    /// `EC_P256_SigDER` with r 72 bytes longer than it should be.
    static let kc41ECP256SigDERLargeInt = bytes(
        """
        MIGNAmgiAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AABLN39F0F2mU7NibzLb/PY7hPpa2RdnA3NIDK2JE2lhswIhANYjr9l9cro7kMEjfdss0Q27tA9nJv8/pkekEw3gRdVr
        """)

    /// OSX/libsecurity_keychain/regressions/kc-keychain-file-helpers.c `test_keychain`, bytes 38788..<39817:
    /// the certificate CN=test_smime that Apple's populated file keychain holds (certificates are stored in
    /// the clear there).
    static let kcTestSMIME = bytes(
        """
        MIIEATCCAumgAwIBAgIEVoFEwTANBgkqhkiG9w0BAQsFADCBnTETMBEGA1UEAwwKdGVzdF9zbWltZTEUMBIGA1UECgwLQXBwbGUs
        IEluYy4xITAfBgNVBAsMGEZPUiBERVZFTE9QTUVOVCBVU0UgT05MWTELMAkGA1UECAwCQ0ExCzAJBgNVBAYTAlVTMRIwEAYDVQQH
        DAlDdXBlcnRpbm8xHzAdBgkqhkiG9w0BCQEWEG5vYm9keUBhcHBsZS5jb20wHhcNMTYwNDA4MTg1NTMyWhcNMjYwNDA2MTg1NTMy
        WjCBnTETMBEGA1UEAwwKdGVzdF9zbWltZTEUMBIGA1UECgwLQXBwbGUsIEluYy4xITAfBgNVBAsMGEZPUiBERVZFTE9QTUVOVCBV
        U0UgT05MWTELMAkGA1UECAwCQ0ExCzAJBgNVBAYTAlVTMRIwEAYDVQQHDAlDdXBlcnRpbm8xHzAdBgkqhkiG9w0BCQEWEG5vYm9k
        eUBhcHBsZS5jb20wggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCzqqh35z4tDPSDVcKeUBDJ78hIOORDlvqTMr9mrYSi
        i2sHjMaTjE1lD612cwxNQ+411GhKmm1Npa5mz/u7k9Nq4/xBl66Qw9iD+41nhMHVfR0Sygy1rvDjNjnxaJJv2i1Ih/BLFU5PejoW
        uQKJlZirslhbMX9JkEj9jYo3Ok7YAErc1AKfzUvedUqyJ47mLeo1iYWKN1nW0fg2fJOe1tHD2XWkT0Ak6cDe68Be1gTh0AcpwZ1v
        eC1a7+b/JRbPYHeiECukKv90O+ZNwRO6i+gVjsfD1DGwmVEyMAMLHKAKFxU0VzjTCBPE1nwkFtAvAIjX2coea1A7X7YIsSlCcPGJ
        AgMBAAGjRzBFMA4GA1UdDwEB/wQEAwIHgDAWBgNVHSUBAf8EDDAKBggrBgEFBQcDBDAbBgNVHREEFDASgRBub2JvZHlAYXBwbGUu
        Y29tMA0GCSqGSIb3DQEBCwUAA4IBAQAAoz5cMwYLdPdZVi4mGOBZySCdqvL7oPgRAHFTPfrc6RJMiqEcfLNLpaD6A8WCHKtE9stZ
        S4DrwKgOxpPqv2dBqWTLtD73ZM9M7yRicy3ttOwwl5GfGOkSkxiDcLDENTNnF7CLvkXemCPyAnd5VVPE12eB3qE/Y7WHtiCNT15+
        JzCZ4P+RiwCNfeVXV9jZfW/GuG+E7YSd2awT2EqWVS2OIRHJpIEQegoVzpmYCd3sjRv7F1UDpkS1yakfUtc1Bo0KWgEqsNIM+tlm
        +jVuoLwh5OHgPDt6733hNC7jnMCpTBarAGDgROtizB0nhA8zN53FxKHT6Dj/8t/NfLvDoa5N
        """)

    /// OSX/libsecurity_keychain/regressions/kc-keychain-file-helpers.c `test_keychain`, bytes 40284..<41294:
    /// the certificate CN=test_codesigning (SHA-1 94DF224A…AE34, which kc-05 checks).
    static let kcTestCodesigning = bytes(
        """
        MIID7jCCAtagAwIBAgIEBuAqHTANBgkqhkiG9w0BAQsFADCBojEZMBcGA1UEAwwQdGVzdF9jb2Rlc2lnbmluZzEUMBIGA1UECgwL
        QXBwbGUsIEluYy4xIDAeBgNVBAsMF0ZPUiBERVZFTE9NRU5UIFVTRSBPTkxZMQswCQYDVQQIDAJDQTELMAkGA1UEBhMCVVMxEjAQ
        BgNVBAcMCUN1cGVydGlubzEfMB0GCSqGSIb3DQEJARYQbm9ib2R5QGFwcGxlLmNvbTAeFw0xNjA0MDgxODU2NDZaFw0yNjA0MDYx
        ODU2NDZaMIGiMRkwFwYDVQQDDBB0ZXN0X2NvZGVzaWduaW5nMRQwEgYDVQQKDAtBcHBsZSwgSW5jLjEgMB4GA1UECwwXRk9SIERF
        VkVMT01FTlQgVVNFIE9OTFkxCzAJBgNVBAgMAkNBMQswCQYDVQQGEwJVUzESMBAGA1UEBwwJQ3VwZXJ0aW5vMR8wHQYJKoZIhvcN
        AQkBFhBub2JvZHlAYXBwbGUuY29tMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtgesXMbL8LeXDUMa6WHnNGNqJg13
        uiWqyEb4yd0htD4uEY62cvIBFgfPiJHEwEhkQZH3Y3LVN+83Yu0zs/luMdFo595in4K4nhHnZpHBvuVc1nGDkbwPqAbD6bZ2Fq5p
        CkfkZaoTcUizXCWlGtAqV1f5txO99BNaERvM2Jpfgj+na2RHVLaBr8tLlDllFbpqAnxxMGAhEmMo4IXKzAexE0AZcgI1Di1Lis0d
        CWWwgUnqcBWSGXv+FfdKPx48Y3oPFzIatyahoJs/Tnw45ie/qBv3vS39mwUMqoG4CdTi471scMB+ldQLE6u43T1MWfDHjke12DF4
        gNJfDAuuIuee0wIDAQABoyowKDAOBgNVHQ8BAf8EBAMCB4AwFgYDVR0lAQH/BAwwCgYIKwYBBQUHAwMwDQYJKoZIhvcNAQELBQAD
        ggEBAK/jQapj3D7RRh56CQRK/VTH2SUvzo5dNJYEZ7xvtpk1whYcKsNf327i5C67ZBwK/2J5cHzGjtmVtoo99t15HOtzBS9+OLic
        /AaPX9fs0yOudQ+OcLLYiKBPUwrM7hjyW/jhImvrTZ0qoUb0x5kmW6+SVHLn6kk0mI2TGMVueXmzY3b3hEkGWBQahr3lWviBBhUM
        91dO677J5gmjHczGCLxxS2Ia7N2t4wDZ85iUdbXCZOzs4YhbJNaiJ4YQxPz3jXmVID7FetxXyC54Y9UJw6mk2YOZvhfcIoWYC+H2
        Z0f3He1A5FxeWPEnW+J7sPW/N8Pic6jW8UKyVpAApDVKWnw=
        """)

    /// OSX/libsecurity_keychain/regressions/kc-keychain-file-helpers.c `test_keychain`, bytes 41780..<42869:
    /// the certificate CN=test_smime_certificate, e-mail nobody_certificate@apple.com.
    static let kcTestSMIMECertificate = bytes(
        """
        MIIEPTCCAyWgAwIBAgIEAPv/qDANBgkqhkiG9w0BAQsFADCBtTEfMB0GA1UEAwwWdGVzdF9zbWltZV9jZXJ0aWZpY2F0ZTEUMBIG
        A1UECgwLQXBwbGUsIEluYy4xITAfBgNVBAsMGEZPUiBERVZFTE9QTUVOVCBVU0UgT05MWTELMAkGA1UECAwCQ0ExCzAJBgNVBAYT
        AlVTMRIwEAYDVQQHDAlDdXBlcnRpbm8xKzApBgkqhkiG9w0BCQEWHG5vYm9keV9jZXJ0aWZpY2F0ZUBhcHBsZS5jb20wHhcNMTYw
        NDExMjI0MDI2WhcNMjYwNDA5MjI0MDI2WjCBtTEfMB0GA1UEAwwWdGVzdF9zbWltZV9jZXJ0aWZpY2F0ZTEUMBIGA1UECgwLQXBw
        bGUsIEluYy4xITAfBgNVBAsMGEZPUiBERVZFTE9QTUVOVCBVU0UgT05MWTELMAkGA1UECAwCQ0ExCzAJBgNVBAYTAlVTMRIwEAYD
        VQQHDAlDdXBlcnRpbm8xKzApBgkqhkiG9w0BCQEWHG5vYm9keV9jZXJ0aWZpY2F0ZUBhcHBsZS5jb20wggEiMA0GCSqGSIb3DQEB
        AQUAA4IBDwAwggEKAoIBAQDD6OA0/2MIzjaCAueRC3OEua3YeZI0IJbROsd/GdfPn6srwAzh9g6en3NClfEsY/8/MbHjJBp1fVAs
        I1lTLKuv11zxJ9Lp9Y92xJZ0PNpl1J7eMyVd7QSULLUY62SO9NTgtvzM1/uQnMHmCbmMybqRTWNfoXUTEX0TqSwHvctdxbBP7ZXG
        jOl4oqVCFVrQnJyFhW5QrhnVkRNiltlKR+P+j31Hvb6qN2Tj8KOk0O/vKqdFvyF5uFwEii974OIyWHXs7C94pZp7ozz2ZwCD5Xcd
        K9100EXPpAzy4mCocIcFC3zviAkjFd/bn8KAHwoSywCkinenVI/LkbtVUlGPyvYBAgMBAAGjUzBRMA4GA1UdDwEB/wQEAwIHgDAW
        BgNVHSUBAf8EDDAKBggrBgEFBQcDBDAnBgNVHREEIDAegRxub2JvZHlfY2VydGlmaWNhdGVAYXBwbGUuY29tMA0GCSqGSIb3DQEB
        CwUAA4IBAQCMRHDa2WVS/UYOq7u1HEYKyz3DcXmoXztFSSkM9Wm0J015ramTEXutRcZJVItdX8yd2eSP/yEPekDy1s7hl199nHYi
        czA7tFugB3CWl4ThR1s+0u0/ypc6M1K4IoniLmFeIBr5T5oY3vOOETsZCc6OuShfZFTBMxlollRThLby27NryjYIsaMNGU6sFyWW
        DUyexaDM5FKYHM8Kd5HyyK6MHB2uefYMZfC03QxvNRKTtyDRKaNAtWZnad2Xz0if6QAzDo6uxkDjQNurix40uwu3QtQNnoaZPL00
        xbqsA4vNo+42UihZeinXH6EYxbp6xPBnSmFcg61siQvdQPj9jM6E
        """)

    /// OSX/libsecurity_keychain/regressions/kc-10-item-add-certificate.c `keybank_der_bytes`
    /// (keybank_v3.101.cer).
    static let kc10KeybankCert = bytes(
        """
        MIIDhjCCAu+gAwIBAgIQeO5I3hhbIHHJycO1HXvdwTANBgkqhkiG9w0BAQUFADBfMQswCQYDVQQGEwJVUzEXMBUGA1UEChMOVmVy
        aVNpZ24sIEluYy4xNzA1BgNVBAsTLkNsYXNzIDMgUHVibGljIFByaW1hcnkgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkwHhcNOTcw
        NDE3MDAwMDAwWhcNMTExMDI0MjM1OTU5WjCBujEfMB0GA1UEChMWVmVyaVNpZ24gVHJ1c3QgTmV0d29yazEXMBUGA1UECxMOVmVy
        aVNpZ24sIEluYy4xMzAxBgNVBAsTKlZlcmlTaWduIEludGVybmF0aW9uYWwgU2VydmVyIENBIC0gQ2xhc3MgMzFJMEcGA1UECxNA
        d3d3LnZlcmlzaWduLmNvbS9DUFMgSW5jb3JwLmJ5IFJlZi4gTElBQklMSVRZIExURC4oYyk5NyBWZXJpU2lnbjCBnzANBgkqhkiG
        9w0BAQEFAAOBjQAwgYkCgYEA2IKA6NYZAn0fhRg5JaJlK+G/1AXTvOY2O6rwTGxbtueqPHNFVbLxveqXQu2aNAoV1Klc9UAl3dkH
        wTKydWzEyruj/lYncUOqY/UwPpMo5frxCTvzt01OOfdcSVq4wR3Tsor+cDCVQsv+K1GLWjw6+SJPkLICp1OcTzTnqwSye28CAwEA
        AaOB5jCB4zAPBgNVHRMECDAGAQH/AgEAMEQGA1UdIAQ9MDswOQYLYIZIAYb4RQEHAQEwKjAoBggrBgEFBQcCARYcaHR0cHM6Ly93
        d3cudmVyaXNpZ24uY29tL0NQUzA0BgNVHR8ELTArMCmgJ6AlhiNodHRwOi8vY3JsLnZlcmlzaWduLmNvbS9wY2EzLWcyLmNybDA0
        BgNVHSUELTArBggrBgEFBQcDAQYIKwYBBQUHAwIGCWCGSAGG+EIEAQYKYIZIAYb4RQEIATALBgNVHQ8EBAMCAQYwEQYJYIZIAYb4
        QgEBBAQDAgEGMA0GCSqGSIb3DQEBBQUAA4GBACNd7qYkBf1202oa1rpGBqpqDwOQZrKwpsKeyR6jVVOvPkX93Iwn3VM4Cbt8Syu6
        lUr+cE4badY8908HxfIXWkyij6wLigbbudRrxR1Y2hdS4yHx0tda1eWrWXsheoZq1P4XETpTDZxgoErZXuQdDCmqEwdlhh+/tMmC
        U5wsAo8j
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `ROOT_CERT`: Test-5685316-ROOT.
    static let kc18RootCert = bytes(
        """
        MIID1TCCAr2gAwIBAgIBATALBgkqhkiG9w0BAQUwgZ0xGjAYBgNVBAMMEVRlc3QtNTY4NTMxNi1ST09UMQ4wDAYDVQQKDAVBcHBs
        ZTEUMBIGA1UECwwLQ29yZSBDcnlwdG8xCzAJBgNVBAgMAkNBMQswCQYDVQQGEwJVUzESMBAGA1UEBwwJQ3VwZXJ0aW5vMSswKQYJ
        KoZIhvcNAQkBFhxzZWN1cml0eS1kZXZAZ3JvdXAuYXBwbGUuY29tMB4XDTA5MTIxODE3MjkyM1oXDTEwMTIxODE3MjkyM1owgZ0x
        GjAYBgNVBAMMEVRlc3QtNTY4NTMxNi1ST09UMQ4wDAYDVQQKDAVBcHBsZTEUMBIGA1UECwwLQ29yZSBDcnlwdG8xCzAJBgNVBAgM
        AkNBMQswCQYDVQQGEwJVUzESMBAGA1UEBwwJQ3VwZXJ0aW5vMSswKQYJKoZIhvcNAQkBFhxzZWN1cml0eS1kZXZAZ3JvdXAuYXBw
        bGUuY29tMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAsEyU91YmkbjRW3zudMsfQ/6IJK2wHoWG6T/ndEBsSo5rUHob
        Q5qe9IGz8dtu1PquBst/5soGBsQeLfP6Z9aVDqzKKyUUTCAEtCasFWIVpiEUUcx3ghHQ+LAGwQ/7CGBTER8AqCcOLCxjNGrFSy3M
        B/Y53ADPbikVPj9siblIlxmiuESNmIX0C3AG1po5T0SSc3TfRhCctbtp9OG1YS7/kttHk0hF6376zNvOUArKr6t9CZoexAih1Lkq
        QkkQdWNOUTv39MrLBcngydMEFIH2mu4MK1aHIFAnFHEcMBiM3fSpQRNt5EGx4H4J15nO5HqRZbs/4dQHjakjCqSAR1jVJQIDAQAB
        oyAwHjAPBgNVHRMBAf8EBTADAQH/MAsGA1UdDwQEAwIChDANBgkqhkiG9w0BAQUFAAOCAQEAOEQQ9CRKqp8NN151t/XFJxlX5SVK
        RANfLtRwad1V20cHBj5dpLtk4qYJi20LUDNaklpb32qfgV8XlbDGw81tF92DwaW3zf/oExA1hT7K5PUiWB5oFGI15GW000JaA1wt
        dtWbqss6rFVYrWcw3MOnqTe7YaLqbgywSw1kPVk8o6FzTzPbb78tsp3OBRzwq0qwcF0yICLXEsAcCw3AcmtvpPiq0jQ2Y4SA8HBe
        Cer/SEmFg46ObkwuL7u/3ztzZaINCYSPCIZhJ1i2fi3sCLpAXSBUN93M5ds4aO5Wn5LdAwTSlFHTqQgubiWOv4qpK61QAKc5EWqa
        KJmauTu5tZwZOg==
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `INTERMEDIATE_CERT`:
    /// Test-5685316-INTERMEDIATE.
    static let kc18IntermediateCert = bytes(
        """
        MIIECTCCAvGgAwIBAgIBAjALBgkqhkiG9w0BAQUwgZ0xGjAYBgNVBAMMEVRlc3QtNTY4NTMxNi1ST09UMQ4wDAYDVQQKDAVBcHBs
        ZTEUMBIGA1UECwwLQ29yZSBDcnlwdG8xCzAJBgNVBAgMAkNBMQswCQYDVQQGEwJVUzESMBAGA1UEBwwJQ3VwZXJ0aW5vMSswKQYJ
        KoZIhvcNAQkBFhxzZWN1cml0eS1kZXZAZ3JvdXAuYXBwbGUuY29tMB4XDTA5MTIxODE3MzA1NFoXDTEwMTIxODE3MzA1NFowgaUx
        IjAgBgNVBAMMGVRlc3QtNTY4NTMxNi1JTlRFUk1FRElBVEUxDjAMBgNVBAoMBUFwcGxlMRQwEgYDVQQLDAtDb3JlIENyeXB0bzEL
        MAkGA1UECAwCQ0ExCzAJBgNVBAYTAlVTMRIwEAYDVQQHDAlDdXBlcnRpbm8xKzApBgkqhkiG9w0BCQEWHHNlY3VyaXR5LWRldkBn
        cm91cC5hcHBsZS5jb20wggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQDEvUYOD1wcoiPSO4zEAlKM2LHCWC6EqmzLS+Tx
        50iYRmvQULCjHyPGPIFz5+qqVfc3WIX2lg3AgY092a36MkZWSlP1UzRb/PxRKkXUy1P5WL99SLMjQdeTHMIy6ByC3NzL7QvaihzA
        DoMk5i5oprZg7q+xB/HA2ymDngz0z2dbSToXfsHrdT7dD5rHBmArGL2qltHhnPA0/z6MSpZdaHzPoRTtsY4QjR8VIk6OGsetuRbL
        PMtduazZ/q7eBju2oap8kXbGpIG9KYYzprVNKJRRgT9oletBeumH19zIoF+rKdnECMigC3esbCEQpO2GeJkfpyMzNImAAryvxj44
        +3xHAgMBAAGjTDBKMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgKEMCcGA1UdEQQgMB6BHHNlY3VyaXR5LWRldkBncm91
        cC5hcHBsZS5jb20wDQYJKoZIhvcNAQEFBQADggEBADxmO51uqQ7Jwmz0efvVbh8BTg0sZHtu18enZIvwzZPNEilxhz6jHn9Xx9m/
        0vIDJ9Ve71m8kTe0Su7SL+qSB7zsrGrxNKRAYYu5Pa9bhm7uTMt/H9APnlrwOf2J8wNhWt9rX+MzUYAbYf56xye/ErVpeR6tdaj6
        lMwiTPm009DcV9Nmlt2KwOQRWtmzdhcE2mJxWOqZwwan6NupBeyjytoud2b0xNLG8F/miN9/I957BKQiRe8KE3mO4RQieSKGGkyn
        ugZV2V7znOAf46QcjgGffu/Sp43WTRo9p7LbRCW1porVSYcEbEETiHr7XhaijzeBR9gnPb2xPs4qB3VFX0Q=
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `LEAF_CERT`: Test-5685316-LEAF.
    static let kc18LeafCert = bytes(
        """
        MIIECTCCAvGgAwIBAgIBAzALBgkqhkiG9w0BAQUwgaUxIjAgBgNVBAMMGVRlc3QtNTY4NTMxNi1JTlRFUk1FRElBVEUxDjAMBgNV
        BAoMBUFwcGxlMRQwEgYDVQQLDAtDb3JlIENyeXB0bzELMAkGA1UECAwCQ0ExCzAJBgNVBAYTAlVTMRIwEAYDVQQHDAlDdXBlcnRp
        bm8xKzApBgkqhkiG9w0BCQEWHHNlY3VyaXR5LWRldkBncm91cC5hcHBsZS5jb20wHhcNMDkxMjE4MTczMjE2WhcNMTAxMjE4MTcz
        MjE2WjCBnTEaMBgGA1UEAwwRVGVzdC01Njg1MzE2LUxFQUYxDjAMBgNVBAoMBUFwcGxlMRQwEgYDVQQLDAtDb3JlIENyeXB0bzEL
        MAkGA1UECAwCQ0ExCzAJBgNVBAYTAlVTMRIwEAYDVQQHDAlDdXBlcnRpbm8xKzApBgkqhkiG9w0BCQEWHHNlY3VyaXR5LWRldkBn
        cm91cC5hcHBsZS5jb20wggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQC/G4drEPj2JAdAw+OBJtb0/6psJtS/95r1uGO9
        i/1L/v9LohUTUoSHnisyW/gBKF7xnOdSsIm4StCHQAzNrBEiiUQmO0DzNGEUOpTzHydi+Iy09R6mN1Oysx419gA0SyhyW53Y6gaR
        d1c4nKVmXxqaC8wvLliicGam7xs6DvBLpp1tY+AcnI7/b1BfAxqAEkq2iYNcUZ8v6uR/EvvkkvCLFzUCc6B9ormJ4nhSoQhCeNXT
        jDzyiF56zJSAQurtbmQZXlMFtmDbgZIsPdSv+O3ZKM4L2dwgDKmNpFTR2t4wSmfGrE7jtNcW9dzjUqwBHLbBW7TqZyX+9lhc/ohO
        z/ERAgMBAAGjTDBKMA4GA1UdDwEB/wQEAwIHgDAPBgNVHSUECDAGBgRVHSUAMCcGA1UdEQQgMB6BHHNlY3VyaXR5LWRldkBncm91
        cC5hcHBsZS5jb20wDQYJKoZIhvcNAQEFBQADggEBABrl0RNmg8casFDwG25wbjYaDxKeC/1LeeyqXio3eVCXE562Q/DSxvNDczNs
        y3PlvkxCbzN2lqJroI2tRqXUrA5VgBpur8Ius9Rkw2X6HEJHEp9E0h/PoVNJZmYUIdQX0SZ1rQiTnDu3fAMvdl23JYNo4wFczYd6
        cYuNXScn8iRWfH4zj+YCRq1jKIWinupaxJLOdujU1H1IRKQhjLfCFYCHGbEQasdRtyVAJorMtgziDaFAIIUP5bm1MhCpXyXK0pUR
        VEHqw7oMJBAoyQmvft9qLzBJfLAjRqjc42oXh/fMOr0RlcMKN9EfILYbsqJF/8ENmlbNWvYIqr2rE8b9quw=
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `Test_codesign`: Test-7875801 (Code
    /// Signing).
    static let kc18CodesignCert = bytes(
        """
        MIID4zCCAsugAwIBAgIDAchgMA0GCSqGSIb3DQEBCwUAMIGdMSQwIgYDVQQDDBtUZXN0LTc4NzU4MDEgKENvZGUgU2lnbmluZykx
        FDASBgNVBAoMC0FwcGxlLCBJbmMuMRAwDgYDVQQLDAdDb3JlIE9TMQswCQYDVQQIDAJDQTELMAkGA1UEBhMCVVMxEjAQBgNVBAcM
        CUN1cGVydGlubzEfMB0GCSqGSIb3DQEJARYQbm9ib2R5QGFwcGxlLmNvbTAeFw0xNjA0MDQyMjU1MzJaFw0yNjA0MDIyMjU1MzJa
        MIGdMSQwIgYDVQQDDBtUZXN0LTc4NzU4MDEgKENvZGUgU2lnbmluZykxFDASBgNVBAoMC0FwcGxlLCBJbmMuMRAwDgYDVQQLDAdD
        b3JlIE9TMQswCQYDVQQIDAJDQTELMAkGA1UEBhMCVVMxEjAQBgNVBAcMCUN1cGVydGlubzEfMB0GCSqGSIb3DQEJARYQbm9ib2R5
        QGFwcGxlLmNvbTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBALB4QdXAcR0CyFdG+MQ8fKITRYob7xamb/6X5Itqe4nS
        UMtrzEcymtP0GWJw5ifEE1pgIIyxxPF2zQazYHhNsjCxHFM2mESENVfpvLctF9cMvFKe/eUyKq0oNiSBh1bSOWYTniZEMqOni+cz
        JaOOJRSR9DIal4LTWrVoJAxGiQBv+icDxgui8K3S7DXKGsV21LJIcvA0SNaOrjc1h2AlFnHaDHGqlcLkCZHZOGLuDCY0e2u7+DOh
        CHHBSl99FzElt75mqyhuWDzRX7+PSG5Cj4Uanmt5v0PZ6yCoHvbkqttihwJD0HWkFB0zPoFdenxK3z55cMr1tthtjsd/x6BybpUC
        AwEAAaMqMCgwDgYDVR0PAQH/BAQDAgeAMBYGA1UdJQEB/wQMMAoGCCsGAQUFBwMDMA0GCSqGSIb3DQEBCwUAA4IBAQCYA6cXZhrz
        GdV/rHSOp0NqFMpdqPmNIjhIHBDY5v4OjtS1jonZlQG6EUx7fGSY2EoRQw1xvZ/ZM4SgPp1tp3LwjWKeRcKR/ru/CIs31zhxjxct
        mIEWLfaQbVdka6C8AtjrY2UdGyDnc4/ggo2P9jYInfP9M0/SsG24UAJDL5AW6bAfmy5wEImq3BjX2jrOuI+kQk5QUKkZQgsHfDPl
        R0BqFAIfHs9msnaIDUk6pd77mfpw1F6hPm1/a4xxeZSzH8/dmjH9JoKplFWHFzPQNT6AU463GIZbi+4pz98OPzGeKUSomfe+UTtT
        zVX8t25QIfLMnAnib00VL5ihBMDrTJiT
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `Test_smime_encryptonly`: Test-Encryption
    /// (S/MIME).
    static let kc18SMIMEEncryptOnlyCert = bytes(
        """
        MIIEBzCCAu+gAwIBAgIEAriVIzANBgkqhkiG9w0BAQsFADCBnjEhMB8GA1UEAxMYVGVzdC1FbmNyeXB0aW9uIChTL01JTUUpMRIw
        EAYDVQQHEwlDdXBlcnRpbm8xCzAJBgNVBAYTAlVTMQswCQYDVQQIEwJDQTEQMA4GA1UECxMHQ29yZSBPUzEUMBIGA1UEChMLQXBw
        bGUsIEluYy4xIzAhBgkqhkiG9w0BCQEWFHNtaW1lLXRlc3RAYXBwbGUuY29tMB4XDTE2MDkyMDEyMDIxM1oXDTI2MDkxODEyMDIx
        M1owgZ4xITAfBgNVBAMTGFRlc3QtRW5jcnlwdGlvbiAoUy9NSU1FKTESMBAGA1UEBxMJQ3VwZXJ0aW5vMQswCQYDVQQGEwJVUzEL
        MAkGA1UECBMCQ0ExEDAOBgNVBAsTB0NvcmUgT1MxFDASBgNVBAoTC0FwcGxlLCBJbmMuMSMwIQYJKoZIhvcNAQkBFhRzbWltZS10
        ZXN0QGFwcGxlLmNvbTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBANWe8OZOjR0PYnUaXdcZNPAnrzW7bf4b5f3VVHdK
        Lx1QUbtuVZ7+zUDg4aX774xrSX5zXBlErVC8EPlmzxfUY41rS2EJXufyvyB49ORxgbq5sA6MWP0jZ2c4S80js3YgUZm3esQ01MpQ
        wRZNz2A8wikGm0g1234a+F0OcqcBArQmQIHzqCgOU3lVGRPh2UF45miWkfnJv2DUiN8mGcbVxD9wH8CPLD1JunnYzW3MiN6G1BmJ
        Gxy92OvGgdu3V1Prkr/4G9hK5+6DAfeu9CUrbxf0oLh/hyBP/axZAIBeIAJaQXbyV5cpqYeuebc/lS83br8fbeInORzyC4/k/2Bd
        j+sCAwEAAaNLMEkwDgYDVR0PAQH/BAQDAgUgMBYGA1UdJQEB/wQMMAoGCCsGAQUFBwMEMB8GA1UdEQQYMBaBFHNtaW1lLXRlc3RA
        YXBwbGUuY29tMA0GCSqGSIb3DQEBCwUAA4IBAQAKSR++2qOPeCwZbdGkqI2hAO6PpNMrc61GAERAGMd6vVwhgJH+oEj+AD/zw7Um
        8PL6bvJkRVlBvW/Ctvi6xHVqQdEKbR/U4Ox3el+oRC6zluRijqJYhXchT3DtOFppNo71P0slQORKAO8U5KOtqrzcGF/F6cH+5GhS
        MIcegE2m9f0NFQAG2AWCLZREgI8brBifUUBHKU97uLsD3YoBT9BOIfXDZC+m44GNZcBqFx3F36YHfEhZNXgCKaC+JTnfUTB7KhnQ
        M80HYTgYRscWi82pvyLQ99GkMoCfLhcKF7xI8yxtQDvw9QsQmJNQzEZkV221oNqP18YKAR2JCy/jmMya
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `Test_smime_signonly_p12` (password
    /// "test").
    static let kc18SMIMESignOnlyP12 = bytes(
        """
        MIIK3QIBAzCCCqQGCSqGSIb3DQEHAaCCCpUEggqRMIIKjTCCBQcGCSqGSIb3DQEHBqCCBPgwggT0AgEAMIIE7QYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIp/jlZWIx4KYCAggAgIIEwCv23A0czg0qqFCUxVIEoAeL8jFOXv7nj1OsmBoECNzZxtXuvUMVVfgD
        pwUxf+42qEPbCSVhjhzShCLC9S8pS5f9OLhN3nYo6dn38XfdfW8193OU6zldr5LKBzmiitLN4GlbL8MpHLsnAYNJ/lV1H1b0+O1g
        4+4QQE1n2xtOCwNl/BCfQBnN51tvjfQhgB6BrjSscPXdWbfYMZ/Z7FSMk3N4v1z5KYsy3T216N/meNK+nVUt3iPkFMJ7OM4nIgtq
        BSInOQSZbwJ0wMjNjad2n0F2a5dfQMSkd4UrGJR5oyqNclyKFa1Xh8Nyg4lK7JK2rbBathpTYShm/JxKT/04KgBVVgP/CbD/vKZ4
        QwyQx20lRXNhVSRdkyw4T41oQf7rvK7ukqW9bB9M4rLIQlBcqaNTRmuhTmlv4BLEAx7lwa2NV5X9JIXXK127clticpfduLF690Is
        n+JuV33ucmfsmDpjRCh1zpteleY0fB5WMz0xadb3Yql8Dved+H3+hhJiGPHdvzdzsguBtDjLk4w65tZyOQmECdcUwWd4xFqjpgsM
        2NTa17g6hsxEffYwTwefiigiiTTTe+YbrJoR3QZybj85PxiSyJO7fEplrbr7aynj1Q388QWRnT+GhtPzSIu6l1mv+wY0bglbT0rf
        PJTHGLDwI68vTinSmcNfQ1LSkxuMEwhco1poFH3arZK10BPmIbxb1fpO1wGLoJr9AgLDnn/8wJAq3aygAZI5I7Q7KhNWy3j14awV
        fyI4dwyo/EYUAr4o8qRZaAFzSlLq/riOWfJBqgR3IMZXYmCzwGsrW01kDP4JkjWf3v6tjtbzj7n0dw/tRw13WZzaf0Ch7myvZmkS
        OkKYVZE0+AJX+fGcXn/sRBQhiyGY6GIAC5viyP/+9aDFamF1b78fjXK+SB/fWLoTM2CPxFvzcJTuJZheMEB/HPY0tW1cwkWtG4ie
        EFmGz0mqpHLuHOshhXhcGggzbVLz3oZkKjSeFxbFr8lasGnL328jZ+cCk/h5PcF/fueasqhbEWSMS3EpxIylO89CSEErKTHE/CFp
        EB6M3gJFQzBKn0uPT/VjT23tfDc/iEMBlbpJA6Hg5vlYOlDzP88VxzBLVq10nh3hHzMzEJ9V9q3yBzI51G4y0sW7Z3130yG1zl8H
        xGFrZx1YVvejmU96ndN4B39OJJQudUbQHnZ38Rgcvz7lQkWcMHhkXlVDQk5gH1fD0+P0i0yvGMCp+OXTluDSCgXFKkIWyR2Q+0st
        O78U/HtHEfdGezG0LyWJ7V2VfAvpiXoKg8IIzGGNevM6fn6kFjYOnqzTAQ1gDF7KLcxZ2J1ntsCBp8tkjwMYyLorPYM3fuIknv/v
        eAwkr5CDRSn9HB7D+UmISPOuIiYHpsZQ7dq3uE4fbH+cVHcMZgtlS92an2ncmjr8qBy1z/2anUley9WozYmm0yb9o49GuJhjDQrY
        Ie2lXwpui9HXk8qowlRtjko6h1AjbJhNYckhyvrpFK+FB2ZA5Dx4z48NBuLOWzjdbJmVejqv+4LblFFtmdZHQRaMfjC0hkLnrTgW
        Ej5rz7iPCIzOyfVabW0c76PuRB5I5EHG+jhj9n1QWTabirxmnT2s4EorJ9QKXozSA94wggV+BgkqhkiG9w0BBwGgggVvBIIFazCC
        BWcwggVjBgsqhkiG9w0BDAoBAqCCBO4wggTqMBwGCiqGSIb3DQEMAQMwDgQI6Omg/0a9t74CAggABIIEyLfogq79QxW79JQtjShc
        ZsR4Ww9B+Y5lP/MGmTZw65k4KUnqKMSEEYxPXmF8P8NhFhvOUMnWPg6Wk9H3GnmGhiJ+OcAVSWnFVvm26+A2UwHBuS0x29wS4BuF
        SxH6dNVbSoS8fh/0HgR1XnVrsG/AtlwLk+eWlEwXl85OLOhI/4nVjEHhDe2ygnp1Sb8O8uwGi6eG2JVKPlp46vPu/1vJIViILISr
        H3kHrphqoMmTPXRnQ1st+1fIJI7mdA8RU40r2aZEETKr7AjkY7MZXdL/fSmyTsBEC9JoTcC/JM0BJjFSzxwUj3AxH2gZ/YEJ773A
        p83ZbP/3sRG7+otzItk6dKNJVNdSU9WqG3K9pkR97Zfp/c8mKzw6APc/99yROmVby7p5XLf7eRXnfRzY9YkPsV6NlqLvP40nODbV
        z+Vn0Kml3hbn52IEVWb9n6QQyzASECS0f2NqONCbd5Mn2nLr23kmkmDFQbnmzgivPg/mjRd+O7w3VxZUvoxq2rF8Ru7H7SZ2kQHV
        nHvCt2+ModGTUAwnDHSkgHw9KJMhvsmftQrIMRIlkD+abSACoNYhUxBVGUhX+CpIxLWheaxTvSveTaR35B+Hn5/RnACNe4NKxCXy
        t/y4DpcmcCaJhuYVqo9edrM/iwHa9ZkBMsN2GZPK2iexdA6ESwJLUDFkadmkIYX9q2nzZkBDE09Y9QM7wepA6+TKYynKQWR6DrlG
        8sug8z41r+GBqdMM7+ktxBBGJNBtq7HT4EpDzT+k5Nw+cAdikycyRleFRWrPDewI8AdsuIfRxaPw1q83Cf+8FVZg/Crsv4wiHO+q
        /mpCoEHdjX2odKi0/BIu8ua+prwxAUCkJ8J1uxKRyYSg1f+qjY8i0AUFY+GjoPx9tNkmz3dGNprdl4/GeZmBR5EA44jkCcq5LGZw
        ohzHuf7TPo9SWvtjjQY22UD2SpnP9mACsv+BUUT3aXrG+WrjOsURw2HnCd2IBAxBv0FuIFzwazxXOwMWJcc5Qk0yMNMSv4U7kJo4
        4WwyW+Wgjqt/zDaRe9NFR6UUR7AKDynNvHIsyUf01z5cJYWbfan33Oz+e2utACTShNjRwSreDRRGh6aDWWveBvgcgQQ+FKya5MTh
        UbvP4PXDQN0erj4GRYB6awdYwc+zItT+wAGGFkhaBOk8oNstV+xvg04UzPgBO0Zq7NDTEyn1YTh6QdbKh06RZzp/Th5AB60NgKyD
        0k3uxoGrhljQhj6Xle/svtbpwc4updFxHH65pF/MEpYTUG0HjKOlQHOzkHCSS0iVtzhy45wdHWtKKfP1d/teRE4r7MJl0kxsray3
        ZJrSvxBT3S1IVUWdZB0AFdIgFZ/PwHIg7PNVhjaLrI9xBMUXO5iNltlWHEhf1DI9QZRUe6hE/ZmeuyJtNleGGcUJc15Kt5ksUZ3z
        DkCCmsNeAIXxoeDn8s19ajoQQh2VscWedioiAEhSB8dJq6HVpuLFUUcxgDe9tpGro5zunB5pxxUp9Y8ST/SZr1hoWy4NmSUTweTn
        f1gWqgLxzt6QM4Bbs9u2a9p3S0X/cycCebMB6RFkC5MX1XEj2y29BrWKHv0T5Az7X9VoBNfS62PCL33+mySSt0arDnwV+g0a3GWZ
        26FvVZB2tSCLbzFiMDsGCSqGSIb3DQEJFDEuHiwAVABlAHMAdAAtAFMAaQBnAG4ATwBuAGwAeQAgACgAUwAvAE0ASQBNAEUAKTAj
        BgkqhkiG9w0BCRUxFgQUYJQLCdmcCSLCFQ74R0yPvqplUXYwMDAhMAkGBSsOAwIaBQAEFHakLfFnYVZj0Dk047QclqPAWvf/BAgG
        4RkHv/K5vwIBAQ==
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `Test_ssl_user_p12` (password "test").
    static let kc18SSLUserP12 = bytes(
        """
        MIIKgwIBAzCCCkoGCSqGSIb3DQEHAaCCCjsEggo3MIIKMzCCBL8GCSqGSIb3DQEHBqCCBLAwggSsAgEAMIIEpQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQI4s/MnRfNYqQCAggAgIIEeOAM2PV89y8ev5VrwUM1Po3fZZvYoLKG7Dg5BHI5O/FcHRys5mfqzrIV
        5dTu6PGtRXVqB73lK1WJJO1lx45Q+DjvnHkbt7U0MjapGmUPxCKcn9hw6Y5ZiJWGsCyyxU1aPWq/Gjpgvt4ztCGGiwI49Hd+QJ8M
        Ve12/WBwlD75AUKnhA/9wJNO4ngTXVYadvCZNJIMPxmBXAprzBllBojJnHaqogxcSjjPbXn23jl6yeZsQv6qxMBio9rhCIZ5LYBq
        X6l5Q/787QizgJGm55rId8dMfmp5dp8oDyTS7l5Pduip0xrx5A24JpVj01n7AwjqWU7ibXRHooscIZ8caFR2eIr6o2WH1GwWOKrJ
        EVglBbpoktgGhRkezNsHJ6jp7Pu5vV5nIq7NvebcjVryPPQGpg6Y/OxkBbil/lsnQZDkLJM47MaiCOSrsrV7puCJl7bA1Kgfy/TG
        Wc2qmUDGQRg6lTpxBlwNTN/CNzd4M101fA4zfP2XGAetVPCD7SBsiihIKVwsYSWHC/yWilF0jSELbWqIbKXA15rnFklmv7OWc01h
        nn87bTddMT8AXJIgbqsls+l6uuuqnrTb9YVRce1eTQTcTV0NJHSkrzA/ggzj+iGCJSnaD0suHLIG5zZWt0z2NyyAoyHcO6XtJA5p
        FcKWC6JyeqT4q2ukpX5uOvNNkrqQ8J0gn/Rc9kR0asPE7W2VgVNgtID001+ttlect1nMUVRfZzJpY4B3AyMHT/8n1FLOrLrVjav4
        yUgB9+r3di683Xt/YBJyTwQOk15+FQkroSylnTbUv1yxGdQOAA4FeoSwuumOFQqtTY0e/xABQ7+pvzvfhmvvhmP6nijatwMrC84S
        X9hC/E9jk77vEXPUwLwjwpm8KeHXTcLoPrCqlu34SCA9pu3Goo+JRXC/9+5vKtGTzq1V/umo/JQkkZgKrJCmpycFVbM+pwiwSzG1
        6J9ndHM8QoRnhJeVMwD+aWFSBUyLZY4A+NjjQGYEBgkFk0kYpUFvwyivMK9DqnRzn9xYg+lCqBbdzvm+6TP4v1EIJd96vgCK1oLz
        29AhSFzV6obX/+Avk/w+yN24PnnUIqOq60fsr9jxqHF+roX/4Zh/WYgdqhGJvm5O3Hf04RTMHNSKwwz/uRLB87bMogFJrVlHF0oa
        kNB3dz6t3VgIQJK2z4RkcoSNmJ9kKEUasIgIqnsRFQjDVqUNfgQ34GK7NOmEstAa7Kl0m/EOMISwYheSMQwRnqCnSJrXpCkF6vQR
        Id2Om3lKm1zri1ULDQ1+4HkvA1LsTGOgqMJmY9oYrZPes7HoCPiYXRlArs0+zYIJDAVbhHfU+BtTpvCThZx5Q3FMj2YFf8Qglf4b
        1vQtTULGf2lpHq31Jt+FJu3z4VwahgO+2JZ3UtVKtPX8CrDutSGMpFb5+QUnSS1dEaylM+ZVc1S50Sr4mh3TMJBBPwzxDKmu0E3s
        ZmbItVe89MDrI7nIi0Nwli4gFDpwOveDqXuAbcR2pYPwVaB4xH/ErvCpZVzV2uHhkLimBy4wggVsBgkqhkiG9w0BBwGgggVdBIIF
        WTCCBVUwggVRBgsqhkiG9w0BDAoBAqCCBO4wggTqMBwGCiqGSIb3DQEMAQMwDgQIM47kfnSd9/oCAggABIIEyBAQm+Wo4YJDVMXa
        +0tXRdM4/o+V94Z/UBU6Gu7PiqRnKmIeLQWrIZPcN+PbXLmGfHirYhrqfVEBcj/NQAuXronjl4EOHyc2RnsX0+OTjN7D8QUPDEBF
        U+n1qULJIo6l0Du+8B45EcX3GSdlVrRN6O7TgSG0Q52CJAOBBsXinE4QTF3aGsCLVEI/apyerf3OYjC5r5nI6tc8jYGapBMRVmqZ
        GECVZWFUlJFpN5ml0c52PWNSuYpOyyGPa+PhKm3cWPcbm5uhauRgxmtVNYyQ/hLiStNdVdEZR806dPvI/rGC6VC5gHdKGMXgPUXo
        99OWD4gJ8Ennz0T96DMimH8GG/dU9tHRBagXlEG/K4DKQcXc6+4brb6uz2eb+4g9wHCyvhZ8NanF3KAtClmaWVF2NYWPx/dWDNzG
        5GroJm/UTgqlmTvMCqNEJDEoT4TrWwD0ovDd/uBXWprAZJ+cXvhCdFToxDtw49MInhO9618B5gi4aq7o45qJKbgtsykZ7m49ZqEE
        uxfhW7eqh3bliGwkJt9pa0DWQhPECgn7kkE0hWrZsqY7sr2uUJoaxOHXhjy59V+ZKir7ZC4zsiu1C4cZf8H6ow+M/9pkSKfohRAq
        YR1Z+BtGinqiRJDZHebnaVMc1gInLIbtvOj4ub2M1BLwuWZh+Np8fLZypNbYhAsGhSVe+E2tzGAAYfDwOGXlTvzTiz6u8Skun7FZ
        DGUDLh+V2AcZPYUn+sU17GnaL55Ap1wL7azEmaNj73MknEMcRTa5M/QuvX628NH2hvQsHcLGYs9tcImfNia+o0sjALxihTWkJSOu
        YIICJf1baqFrG89CQMrulQjUW6fIKQvq4xm0hbcNzzoPURWESh2tf9BBkxAxsVT7Ga2WCbhlP+JXQLUMyYlSVhDa4BAYkbvi4yyO
        10N63Lt2ZyWcgexZfNzqAimA3yCvuibhSc9+aTZ3rQvMfRA/MWAOFzaMvU2A6Od6eh4Xd3maH9cvdvJKUtmfAizH1Q8Fi1nZE9xX
        u1bQxBOsNAUZkrYYEibh5umNaq2Dlc9/ka3jnxUFlZaNgMMTCayk2f6xs52USbkthGRNdbhYdewwCveW88gZqL1iFAC0JjU/eEOx
        q4+rofNDh7OIH8GJbM8fOBzgaMyTRozeTCwnbbaRqMXu90cXWhGyOrw17gXDF2Npd71DgHHp1ozd7wr4WR1h1hlkcec8NtgHXWwP
        KJmmngEbTJpf3pawYQqc6yopCRuqYnVe1Z/hEmmiHb2XEN1i+SdH8mQSzpXA3NaSSLSyGHgur7DXSJgpG7lQ95UmU8TWbyZflZ9R
        85a8yv8NimmlsIICPne3h+oqwC7HtiwGGY+ERtZY8riK29Jy4MGntbCwK4O7O4U9zMKJd2WNPAO+hHj3KjKcAiN7JULsTyl3ecFI
        Rt522yObWu7H0UBzOaUjQWZMJB+q2Mc8xNXXOy0AHEkXerWQbGtDL2Frity5WKiSST7pMsk8TusuFbh4nzAF101x6NCYfOU7x2Un
        WxY1d/yX+BoHwlBncX3U1lWDixWxrLq6jHNuWPkaOhvA5ZBarpbrBeE3qusMufLUJIJwZHqbEyeruRjIx6M2XH3/uN67m8h438iZ
        OZ7OG+AJUwB9rYaHijFQMCkGCSqGSIb3DQEJFDEcHhoAVABlAHMAdAAgAFMAUwBMACAAVQBzAGUAcjAjBgkqhkiG9w0BCRUxFgQU
        pmPVsrQkkUx1qBE013+wo1XU/ZowMDAhMAkGBSsOAwIaBQAEFC/Fc+LktHf7tUmAzxO+Y36v3CuuBAjcN40/jcWUVAIBAQ==
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `TestIDSMIME2007_p12` (password "test").
    static let kc18IDSMIME2007P12 = bytes(
        """
        MIIK8QIBAzCCCrgGCSqGSIb3DQEHAaCCCqkEggqlMIIKoTCCBRcGCSqGSIb3DQEHBqCCBQgwggUEAgEAMIIE/QYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIPwvZPIBtXnsCAggAgIIE0AglMtx77Yop+FaEUVxt5uY0+AOzgOL0Dj8frRIRJ1boiVmQA/Cnwt7Q
        cL8s6gHnvbqv/AeEL9tloHtLaqvkvdC7Ma+QjKhxECOWZ0TdAnLSD8rLT8IUBPreMaUvl8Aq3d2RYqf3m0NXfU0csZK6rqEkbJmB
        SVZGi+p8Fhl290AGguJbP9gsh2D3rqqlupa/XIZXgY2/bOHRuSCTJ/zmNYCq++ZL/U+kBgVGhWYV+4MrQiaYyGkkoXG0Vjg9XsIT
        NKsvsTNu8AeA3Q5vGQGv/1/D6iRaba2zELtjAhQ4qSGDucMjuvxWdk1GQ9EJNx955XCTtQ8h4+8LTYcMaPUWwBPuKOhJqmBh5Xbm
        jtauUnCycL/r0ti4knFuuFnf7q3BVRRLUgwgTHmTcebFvPPzFBPQzRxiIcDPTvXaUr8sho+1Z/Vyu+m4hhfZNUmuCpmUpaqW9JX+
        SuITRsvZi0hQ/zSIEuebAI1XlESl5tF/NLszn8MSO7K6trMVnq+QXi5hDeYCJUFVGMlKWgqy9ZmKJ8fXAZaeTAV/VJAIkpzyvQ19
        N1pXHVvLzsFYXlBzTWEoGJAtrJFLXl9XKVhluqQRkqj0rKg5HFIUCRPdTvrvuk9Iw0ZOuY3/Xii4zJl/Otz0kFxBFEu8a6MBeIfB
        htetmKDGgjV2QW/x7lS97+/8K4hWYbGToOWOHrSxObPTheCiYUvoJMPdSCr9Wph6mCrHgUw9OwxCaUKH8V8TR/aJxV5HhFmBl+8i
        eRY33HRmMIG8RSHkdWnkZCuYl2HhNN9KN2V03OFxN9YsVIN6kcSm/gkS8/Ur7OljoyUPb9GwlT9/q6clm4Xbz24OwI3Tyg7SmOt3
        OfQaMOZ2bbrAYVVOvogysq4WJ71hxUgmDwUaQqbZKfhYlhYdrfRYxnlG3x8lQ6r1wx91NhwX0k2I9jc1IR8PRYUTUIUKorSWeuQK
        J3SHGxGqfDX2tkmNWDAWtzbW2ILmPaTfp8TH/oEBptpjEJ8rhBRiuDebtD9ia3Y2ObdBr7nJ+KUgHwz8ccpvVk1rI1uyd2+DzI6M
        eNpKv5LUIP5DatR+1WxW2/iUAchv2wCcC0yXpSvBRhmRNAWbMyCyeeUAPbJUT/ojqvo9DIPPgdHQEgM02mu7Y74bPFORK37XdmJu
        ybE9dJ+W+2atNbojEJurw4qH0QuimTSKQ5DpZedpCWFfzkJYad+LDFqgaiUzKZ4ju3f5pC9mhsU49j3LA7+UnVZzU530xq0ibf+S
        kGOAW9JLGM3F4dtNlsQpCw64GFNmSSCO7yWTSBLmNtQzzE2ZvZSWYbJ6dn+h2Rt3/LdUr2zr7JAVIS/iQAUjDCri2qCbDMeLMdeO
        kZU5eddtv4YkTc1yQwVWwOEM7VGjqYV0QSDiN2aAQALyS2A2T88SWiK8bCGxLwxKJsIUI7ORF0ieJ21qL69Y5PdNQEvZUqD2XsM2
        2qYngR58YUWTGqadFmGV7SAsSW2PjRpEiQrOPACcdnalC0BS8rkwrqsEQaEwL0MbaNt8TWzmBfykq9IKdQzZQAnxy14KCSx1vHml
        1bXeB/0nMZatZsamXgpXBjkD5IRhzyVszVb059H/k2wt1s8N5h7lVzembeyh3ugfZJBecOLoBSSsNuHqdd9g4r/CMIIFggYJKoZI
        hvcNAQcBoIIFcwSCBW8wggVrMIIFZwYLKoZIhvcNAQwKAQKgggTuMIIE6jAcBgoqhkiG9w0BDAEDMA4ECPSmD7QujkimAgIIAASC
        BMgKZDtoSprw9oBlLcqmdDMy83GXJyQ80a+L++5pQPz/RTI6GtE1La7O1oRbKyCR+CamExkhPo27MO/dmVgAYVflG8aWvn+elUd8
        3/EJj7momQ3xKuD9CJL3VkUusPQr+TZDsr9jgllBJXDWSegVf3d8fLOrfrYW2fcipiMAag5i+tbiURMOmZ4SSPpx6kfr99mdb6F3
        Vf8w92gz7iYW9kNjTrcWl9NJHPGe4OV3UsoTSI8RIw2HOKfzgWWW/8e0DzlZ/zlaVSt7qzQRQkdCDLBxZHOlHYhupGE8ZxhnK0Kh
        LmCugj43yC6KgC6cXeQ3WMtuOHV2mq8l07K+9TZPCQXi4yADZG+UO+xAjOF+7ZT67ZxNHdcxG53z9Rug+cjW8F7lJhdCGNjjBGXf
        o+YWFtX7vggev9IO1StLeLKA84zmdInozqYrpTgfL4eTUTXorWyNlb3AJKUUJS3fTncyaMCRrVGVJUR610x133PlK+sc0+lCp1pY
        hQbwyzhRbQlXFG/YVQx6d3+1IOjQvYhareb1Aix9C/vkB62i1QzFvGbEGUjoomDd0vgDmtloTanY+tqjb8xT6hF+oKiP7NvAKkDG
        hFhPKiNMvP6qeFic3WzVY+nmeMJzFNURwyr1ikZ4/FpZyZp/upREs0WDCJRNcgsP1omadWsxy+tVhTgsPpuG8FgPTJMk7NWjYTp5
        dqs3Yy153m2jf/LwjEXmzpfGiP2T4PnQk2p3pCjDAneH9iL6Kwsxz+LOqtllppZTjcdnrwwPvFHfC8T4BkYHEpXOOI7nj41GaL6l
        QNztq3Zch6yzX7n9nXlUKMIZLkY/H2fiWDBOid0vRFne5PQNTDPkmG20HwNrD47ehhszN3QUvqlKrPSbpzfo3ZRnJVy0W3n90yQh
        Eb52H5iLc4cMloJZBCKMm1cMyhazAsbcb9KczQ8x6peU90P+4o/HB5hXMHJVQ8r63pL5Bp5Wc4CEu0TlfQT8SY0o+pHjUHbC+Icp
        BKT9+ygg4we29L/nxGqTjBLanZpdjArX9Z+9cQD8IuqkRW/Uxn16RzgVF8bes+sbmuqUwXTRZSXBEYJds2Z/BdPhCv4pz90YMP8A
        f+/BUFR8i4k8ahKd1FrMSHarZNNUNnCeBGk9IJ1iXeZVjtBTXLRUeXNpb1b6YB1h6+t2tNV6yVH8qe1K+lxctSBqRPeq8CeQVdot
        tBFZIWUOh9JTIdKBk/f+O+xJfhzcwo/b7zwKQImU8y13hBUDACn6G+pVfdzbaZXlcqUXj/v8hvxykQmbMhoGXKUmS2FAl0DOF8rn
        eebMbKOBnJ82dDaf2V0+KaDOoYT2rzMrizK0RbE9cocgjIgCDZNQzDHOA/iFStztwMyz2ga9EtX80rt1S8qydxjhXvWfDIziF3Pl
        o4BA2EKx99AEny7CK5tey660X5VT9cFy8f+iWs8beFyZ3wkkv7+Gww5lmubc3ogolNfAbfaTUqZ/dJKbC2LVLLStfMDGOxvSvYmo
        ZAKcgZrYUQQiEGJGOKqqOwBc6FgJJfdTHXKrRIC0M5H4juEAXAfbgXElhjunjjECiUOPCqisayrjuk3fjCBG6tSYL0eY+wNe3ZLF
        c6JU959f2rUdtat4K3JDBwo0IrYj3pAPhXsxZjA/BgkqhkiG9w0BCRQxMh4wAFQAZQBzAHQAIABJAGQAZQBuAHQAaQB0AHkAIABT
        AE0ASQBNAEUAIAAyADAAMAA3MCMGCSqGSIb3DQEJFTEWBBRpbj55OZso9CnUOHjNvRFGtXPsljAwMCEwCQYFKw4DAhoFAAQUW8fH
        g2zBI/Hr6NfIP0xZGElh23IECN6rjTr/+C1pAgEB
        """)

    /// OSX/libsecurity_keychain/regressions/kc-18-find-combined.c `TestIDSSL2007_p12` (password "test").
    static let kc18IDSSL2007P12 = bytes(
        """
        MIIKvQIBAzCCCoQGCSqGSIb3DQEHAaCCCnUEggpxMIIKbTCCBOcGCSqGSIb3DQEHBqCCBNgwggTUAgEAMIIEzQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIeufKG1cmrF4CAggAgIIEoBpEMRxNqQB/FHGDO2j48G5C0GqMAr9uDM3ufkiri37H5GY/TT8FzaVB
        XKIuWUxiTKfKMRDYx4yhbB2bJ3qoAHq500sJ8Pd1tlPfVLouJvUcSZRyywbzoyjLSLRwSgr4+4Ktf1B4txFB1SsRXJWQD8vYleZ3
        dITlTCSg1HoK1sgQpHrLXYFhM7d1api+1K88jGFmQ28SSx5yEHa7xle92yyZp1Me5WpCgLkkTxoslgtk02M2b3V0jtBQXatL7FkE
        2yP7mr/giCTGAH7ZEhHw5eKWt4VrkAOrGKQHzNoZdkneQTLaD5yNypa7Ob7rPbjmwerFpsNpcpZT3jaL7ixrLj2t3ZuK2RzdkvM4
        p+xdpkZUcHELqRoqVGdugo7LXC0jL5sKyLH46psWcsX1LJQQ3z/ehKCXlvzXSU6mNwwqOQhevliclFmYcVswFsxvZLXhHjE0bUrm
        sCAxgeQOSH5MxPqcV/nuWPvCG9eW3ZEPhkDJRSkHZUjRHfgcbR1dznbOcDNPHcxKh9Ca87VA8zXMiSZylFN5WbvmxCRjRoMnt/j/
        gEwKmO7nSnMRkL+UHAOReOgBOqHzU+p4sQlO6i2qtM7OscZRtllSiX6rTOPTm2un8spwU5WKE/zAoiTSlLXllTgBOQooHYPRKgP6
        9m5jgBcFGDMRVuF+ZpS/G4sRz0G/cdmjb7v1rkMdL/GIAHLKSYM+44deD1iXqiuSQN2LF87YEQWkA1EL+jVM3lvaiN0655NgyuKO
        hM1bbbZcU7yFdZaqAAYZhGZNQYndhIG+tqNpcfQ+MYmunndo/yF4okPJDjbgoLauQPH048ipiYAyRQc38R3DHnkLix19ydaikcjY
        BcDAJSeXX2A/x8k+8qx+TEtCFYUa4OH6+SevjW+QUjNsVaednAvB+OWp15yBzghJnLGRAN1vrxf4AbWeUyqg3UdusxvTncGMB5t4
        jC6tu33hChE19/r0APPCpvE/odzhwipLIjEgRZO7Xvzl18tpG606SFmcx3S7eVa3c5JUScm8XfJ0yGOonJlnTXVkEEbnD/GwToud
        T6dn6ey/Gwr93uT2zboSzk61Kb9ZC/fqx3z75OY2hlIY9uUU4ZICmAgPvNBA87GHzGvu7hqMQBNTnmGzFwJ+lyKQb/BkdUL0+Y84
        RidcFIKAcel96cgysq69kCjawMFtBgNsg2g737S0SAQOu26opaUbNr78QNOXw2K5NJS/AfshrrvZ3Q3g9M4lmnzEEPysUx0R3FxM
        bmWznMp2PV0tIWSmPMGhNec4izmff5Nob+uWT3zTSb5l24KRKrRiON1zp39mVPqSZb9xxmI4luL0Fsb3fp16TzVfDinmOHsFAmH7
        FrRD6bF0PVDjUVxUXj7gsf4gLeAFJS8fmiXp7La4mun/OnrIU/3EYbGhIsaFehEHhOlYFXQzCB9Z6Q1/fjjZdyJGtfzVOx1HekoW
        NahnmW1yZg3UszvfuJ9/WTeXZd95DBXjFJnAGsyamGq3WTUhMT70os7EymD4oEO2vooKlernoNtPNiL4tmD/FWlFhFOtSAAOILNi
        B70CRhn2PbhVS1+sOmqGzwd5MIIFfgYJKoZIhvcNAQcBoIIFbwSCBWswggVnMIIFYwYLKoZIhvcNAQwKAQKgggTuMIIE6jAcBgoq
        hkiG9w0BDAEDMA4ECNMiKtLZ0NbTAgIIAASCBMh7iA6DkCU/UasT8TUf7FbL/DFr0RpsNVExtycu5ox1faZY/QgL5Dljxj4t7ivl
        WJBItVc4l0jzLKzx+BCcVgLHnX+e4JyW5wyfVKufJheshoheSpzO6shIgwwu8KBslgcmR2PBrCfRGiWIQ46d4F+A2dEahpISgOGZ
        E8OrU5e+URfEWp3AzeTF1kRWqo1bPchmr2zSlsaDV3oOZmjWMPCq3hOSXiEsNpZ3H9CqSxSfn+WkP796mzj/kR0N1DI0Kz/Y+wlx
        3xthozaBqkmj5FzEjcWrwEO+wUGizCg2Zaa2c5ZqXxrZuEhJexLaKtuqr0aLOX6neIgVlTITdrst9dVBapu45m1DpsNTt8VonamE
        MEJZM4F5IpEeNDGb1PMq2uKjlXoqnGdX7iuJ/GRnAJghY8cZlWmbQnNcaFn8ZOUiV1RYBv+jh30FyMT9xykbHYgLCJaUm9juR5kG
        +mRn/bCxofUmfrFGsQyCUl/FlCN1/7NCGKKfZfsGsIopwW6E2dQ5dwJH41/ytITAdUhLOu9ILo2h5caGRADZTXPtaIyRVj4sGNBY
        2AQV4Nio5kY2VMWMK5ilAXPwZ5VBTqPWjSTEw48ofHZ2hGyVlCLe4p3LN7aXa/NYHVqYiKzZsVkWEdgLaM7fSxooPOsUsiinrVRV
        oWtQhlUArvbfa7NCs3u7DZEU24Lq6Qif9m/QENeDHvxeWMoB3bTIvoDjB3EKdAHU8VDhUSKxQ5jxXt20ZVoYDIsbTuHOsQ6B2muY
        xMvZ0rIe6qwMCIakYKuEUBP4SPtk8zOIg3Ii6GpD07TH0gTtB3Umli2EuRAC0trIyAuV42keVxZ6tRznRon87UlpR7gH5MvRUtaM
        MqqRjUUZ8VQjPF/Mx2D8iQCao8LwSNq/5P14O2wtNJFrDSG0uuhtgLz7kcvOdwFO/nvyCHguPxbU/fB2aM5D3LLigmSPyHEPbsY7
        Smtq1/YhRs0FzhmrKChVGR0HrzjZnN/okWgW3TYZcUaGCAoINMU7U6o1J27k86HWBHj5Y+we/jA4s+fYJ5+Y1blNuYBPsIHGqsLm
        v5hjBcarTsh+9DdorWMIbo/l2WJDow1hhEEC0MYzGXa4MbEnL4FAcTU89vLHm4WcLqD20jrZft2CVvRhl3nbJ12nW40BnWibOk7h
        PK9hD7/6YRIv3npxCt1uKRGOpJMxhSoxqNc/+/TS1H8Mso1jJUcYBAAokNPAfsr6DcSr1HoXt9zOfcLoW2h8qTysTizeDEoJCQN3
        ErkxyQ1uK6yWe7A9NwMyxuFkFsEb+qMy6eolDKG/rqq6vSS6nV8VIFkt5QnmcXDN9UQSzxeLM0tnhlPTZoAu+2uVODUtObgZtwHg
        4n0p04nHyU+0+UggakDTcSj03zr/8NF6eL2S5KIFR/X6JU8iP4+FcqoP+iGEY7y24Eke3wruS6iWvy+nMWTDoRnhK2m/D8x2SZ/d
        TvB38K6DIOLWIRo6GrS/VwKc9rFHg1kMQ86aPbObnNIwzUBY/uypWaj2KDG/w/utNwfUNOdY+srn47s92PbXnPVvwL2eOpEwfOT/
        jb6FkSeSUdzWZn5a+/e+NM5epFDxbcAyO6qMUiXMdSYrqC9vAoEYB1++w+2jk3PJ1HnsNHgxYjA7BgkqhkiG9w0BCRQxLh4sAFQA
        ZQBzAHQAIABJAGQAZQBuAHQAaQB0AHkAIABTAFMATAAgADIAMAAwADcwIwYJKoZIhvcNAQkVMRYEFNDL1lzhc3q4qCr4yebcu8Ls
        AC5qMDAwITAJBgUrDgMCGgUABBRHLp7KcTs2zzRZfgpu4Ot5y4JHdgQI/+n37i9IzCQCAQE=
        """)

    /// OSX/libsecurity_keychain/regressions/kc-26-key-import-public.m `k1024PublicKeyModulus` (its exponent,
    /// `k1024PublicKeyExponent`, is 01 00 01).
    static let kc26PublicKeyModulus = bytes(
        """
        AL9TXycmKNECUnVU+1/xvpSwOzOwNvb4FLli7Pwx8qtgWQK3aGyRkZ7oCPBJ2b0kWrnWCImg8bzHtFW1DhqlzJROV7apa1yQKG+9
        jBL5WV5H20x/TbgSCjabb4vMsw9gI+2ReCgKXvQkxt2AUMTN9lJr3TWCzvJ7pHPZX3Uttnet
        """)

    /// OSX/libsecurity_keychain/regressions/kc-28-p12-import.m `test_import_p12` (password "password").
    static let kc28ImportP12 = bytes(
        """
        MIIJvwIBAzCCCYYGCSqGSIb3DQEHAaCCCXcEgglzMIIJbzCCA/8GCSqGSIb3DQEHBqCCA/AwggPsAgEAMIID5QYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIy6KMYMI2VQUCAggAgIIDuFcdTB/HTACCo8lvLgADG1Wq5YlYGHG4/0AT1ax/8Uiyfm7rbt7oNSKl
        RVqmLu0N4I8vYFzYSYkmQtbgJBxZnOC/mAzDgSBHAwPic5ATbpYxaLePqiVLJ5U/76MrlhCF80k8b5ogAhdC6ZxeXUs8iGX1Z2E+
        phoPWx41GE7zmJN+dncxOwB4jFAodsrIOcX1eSNK6prwtbZQjRbZOXQ2HSbLv7dyXnf1uDX8Zk3c1iBQcMb3E1Wxl34dan1zwnFJ
        0RXnMKdSHyToe9eBUyeU0DHlEeSQigJGcILnxP617bAby6IjXNKV5ixfLQex2OigOefdLjasOPxlmSzaPSZdHi+8MTY+h1VfQPF3
        ehWiw+QhwOERFTH0elHDeHD8O+0Ef1yvIjccgLZ73xGQUsEN+6rQQ0fp2zG3/DW/zgAVDVGxeJlVkR/xTDb6waDOhsl5YAdYp+Uo
        KISSAyxD2mnOdSUBUTfU/aLECfug9R8je9Zj0bVbxdm859Rei2Lu27ce0otu5Iz9ESXarCp6mq1sKeEcaE+zmQa0cipacNb2fCIP
        hfHEMJ8yU6GyGkEBopJYoifoCe11hEHNGUZHhn2gScRylJ9D8gk6WVZ8OzR5G1iCx2QZfDJ7QmafMu9ItPfQdB8cvtR6KgKyPUcV
        QKjVV8jnfY2m6uUhar45jP14Jq8xkw+UB4dsqFbYxnnPHTbuqzNbY+g0AAyVSDSs4tphepc+QeS3MLCzlu2RuFsgMPrw+sfClxSb
        galwihDxdeTsVD7ZqJTNOoL347h110lsgJfY31Zmk+bvo8PWNLdvm1GqfB4WjyGKCp8OvmuWi5WVXRE5FYzKnewmOUke9hYJNpWu
        oFW/lPJvG3STl23YAAzwniS5/gT6MGOQKMsNjujwf5ppVPK8nyQL0dovIoEiMQPCYEEu4MZSe1o1vAD9cQAZ06SoW7z8riQQtCGM
        PBWtLR4zCViTtCk6vG99UTtbl/5n4Z7/a9zysG+hTkvy39ak7I0ZbTBn3gRer9fUQvi8yvxJwOfN/KvKP2f/+0HA5OgM6C7KQ/vs
        4OvqMBTKMI1Jqplxy4WkaNrRvqnG7ibfP945KWxFnkGIY9gxR47cyOQoJXURmd0oJaderH8MtStineDa48LYjcYlXwhu/M2uTJlB
        xHU+XlGhdkeTSoNRkfOS0CmmRDwqkT8Bdetv8zwE03R6/Ho5cMg6iZO9/ddBLLDT79DVdSSxDj2Jjt6nQIDSBeUYovMwIlYLvAWw
        SJpCt+EyulKZIvYwggVoBgkqhkiG9w0BBwGgggVZBIIFVTCCBVEwggVNBgsqhkiG9w0BDAoBAqCCBO4wggTqMBwGCiqGSIb3DQEM
        AQMwDgQIjn6QlK8JxbwCAggABIIEyAx8f1iLQZq4cL9sTLh9cqVQ5sSvdA6Iv4NRvOFmip9CESs9jBCjwt+5NnTBGCMemr+NCktj
        1SAbrrBk/OFc596jb47jyY0YY38mSj1BdqaqPyd17C940kAo5/XuYW1J4GQzyZ722oY6rUcT4ooLmOdz6ghZ/nRvEH28C7nP5+co
        6P4giphAAFKgDFz6SFv0PHZd9DNT1FFDRyna/73+cVtQoaUl6cxodJ9/OWVeuXGPJWjmcQYQovsIVCHKKPzxibkpEWcAGd0A2EiJ
        Rg05DH6UAoA3oAFFJb2LRMzfQ6Ed9VlLB+arFZM96n3WqrCX7R1ewvDqG8LMiEc+5FTDAqxeiLkvgtTQXbIq7pQ924KTxmlfQIPw
        B42ffyk/TTsI2Sn1HA8YQkvZAdpxkqgyp1Nv0HRK7jkE8S3uUL5IsZAhJChAqYXhgXc3qIYVfRay58zgon5Ys9z5Qa42ulWHZAH9
        yQ6h/lXDKmbVgzl+Wugodja7Oam3xs+ZVuW/TbKgrGQAyUJ5R0bXnEozA1UHfwUj41E1qTLppvLiQk0Au9vDhQXL5LEKA/TlJygS
        7B7U10PjBceS0o73rlUaUIgvkQVlS+O6wEKGGStk/EYxm9KIMvhNkdTGd8spAF7SSJkOPy1P25sF6qE9nyGDb8/pHGVAPIsqOI8b
        WjxzevyBabP/tiUSP9pQ597+0zEvtJmHrhev5Lg19zzAmQ51crZGoVXv/0g7XIX3wwMKSQ8RSBOLkHMztiI1RQeAGvmRgJ2Lx47M
        OlKTj/ZZPGn3UpqNjv6KQbBDdAToDvXBTKON45gl9tUNqS23b1IiQ1kwbVS2rXOh6O4QvVWkf8MdrY5y8SZtoa/agjehbf540Yhl
        arIzI826vglmYTPcae1P5vsvfdD9eiFpLR/UxJN8NH1nLOkqmlPCv/kGEKaoYOMByysD27cn6YbofXXOgNuv6X51rePUxPMQiRbL
        xiNaWGa2KtfJadN/oppcHNT44+BjAYgUsyDjIkU9rq8LVaFl7BYLNTdvEl8pR+7du8+fh699qvQBRepfAIce6y93K5JCBEUz8vtr
        rMqYeVZv51u9Y8c6jP2TsRNOwgV/3kSot8SculdYO7q1dHOXIFNwcGXxgeoHwr5XcWI7wDwHZfQi+9P5LbMg3WZRiVRXzdfHGtn+
        4BOdfefjL2U+8LLZDBqpqro7eYbtbL+em7V42J4vlcwxtF/TY/+5YjT9eB+s570pCSoclMUobARZ69Z8DUUH2d6Jodg4iiufw9tV
        iZDGddAvhZsKXgSh+fcWNZ2X/nxLJ0zDiipWakHl04Lr0mJOER5OrqR5iSCCbjl9cPgX1uNnmhTXyIC+YlLnaauYqRSYvTD0qywi
        a1/uWPNvFerO0xsH+uZM6+swpv8DyXWUpVto00KFP6SH7j8UYxZSJjsa7kh3bkpWAVNUG6bXcpiJ1fcROoasZOZZugfqIyEF1hTt
        iC6Ws5DDt8Rbjw7NVrq4S3v91H0My+H/rz4qfBrlZmVZQtc70i6JHWTAveyMqga4Wny40KXvWvOSTC9gmDRzSZJ6XXwszQv7KNk+
        +r12D6px+pg2lJeqlx80IXLGGbTjqgUW2qqSBEnHl0JY0IDcns/6X0u8eP+VOTFMMCUGCSqGSIb3DQEJFDEYHhYAdABlAHMAdABf
        AGkAbQBwAG8AcgB0MCMGCSqGSIb3DQEJFTEWBBT2TWVAnf8mhD9ua5l1sK5gAYzw+TAwMCEwCQYFKw4DAhoFAAQUPbtYRGyjPEiq
        UnbR7zripCPMTTgECBGk2nk+3br6AgEB
        """)

    /// OSX/libsecurity_keychain/regressions/kc-43-seckey-interop.m `certDataBase64` (also
    /// secdxctests/KeychainAPITests.m `certDataBase64`): sun.cosmos.god.
    static let kc43Cert = bytes(
        """
        MIIEQjCCAyqgAwIBAgIJAJdFadWqNIfiMA0GCSqGSIb3DQEBBQUAMHMxCzAJBgNVBAYTAkNaMQ8wDQYDVQQHEwZQcmFndWUxFTAT
        BgNVBAoTDENvc21vcywgSW5jLjEXMBUGA1UEAxMOc3VuLmNvc21vcy5nb2QxIzAhBgkqhkiG9w0BCQEWFHRoaW5nQHN1bi5jb3Nt
        b3MuZ29kMB4XDTE2MDIyNjE0NTQ0OVoXDTE4MTEyMjE0NTQ0OVowczELMAkGA1UEBhMCQ1oxDzANBgNVBAcTBlByYWd1ZTEVMBMG
        A1UEChMMQ29zbW9zLCBJbmMuMRcwFQYDVQQDEw5zdW4uY29zbW9zLmdvZDEjMCEGCSqGSIb3DQEJARYUdGhpbmdAc3VuLmNvc21v
        cy5nb2QwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQC5u9gnYEDzQIVu7yC40VcXTZ01D9CJoD/mH62tebEHEdfVPLWK
        eq+uAHnJ6fTIJQvksaISOxwiOosFjtI30mbe6LZ/oK22wYX+OUwKhAYjZQPyRYfuaJe/52F0zmfUSJ+KTbUZrXbVVFma4xPfpg4b
        ptvtGkFJWnufvEEHimOGmO5O69lXA0Hit1yLU0/AMQrIMmZT8gb8LMZGPZearT90KhCbTHAxjcBfswZYeL8q3xuEVHXC7EMs6mq8
        IgZL7mzSBmrCfmBAIO0VjW2kvmy0NFxkjIeHUShtYb11oYYyfHuz+1vr1y6FIoLmDejKVnwfcuNb545m26o+z/m9Lv9bAgMBAAGj
        gdgwgdUwHQYDVR0OBBYEFGDdpPELS92xT+Hkh/7lcc+4G56VMIGlBgNVHSMEgZ0wgZqAFGDdpPELS92xT+Hkh/7lcc+4G56VoXek
        dTBzMQswCQYDVQQGEwJDWjEPMA0GA1UEBxMGUHJhZ3VlMRUwEwYDVQQKEwxDb3Ntb3MsIEluYy4xFzAVBgNVBAMTDnN1bi5jb3Nt
        b3MuZ29kMSMwIQYJKoZIhvcNAQkBFhR0aGluZ0BzdW4uY29zbW9zLmdvZIIJAJdFadWqNIfiMAwGA1UdEwQFMAMBAf8wDQYJKoZI
        hvcNAQEFBQADggEBAFYiZu/dfAMOrD51bYxP88Wu6iDGBe9nMG/0lkKgnX5JQKCxfxFMk875rfa+pljdUMOaPxegOXq1DrYmQB9O
        /pHI+t7ozuWHRj2zKkVgMWAygNWDPcoqBEus53BdAgA644aPN2JvnE4NEPCllOMKftPoIWbd/5ZjCx3abCuxBdXq5YSmiEnOdGfK
        eXjeeEiIDgARb4tLgH5rkOpB1uH/ZCWn1hkiajBhrGhhPhpA0zbkZg2Ug+8gXPlx1yQB1VOJkj2Z8dUEXCaRRijInCJ2eU+pgJvw
        LV7mxmSED7DEJ+b+opxJKYrsdKBU6RmYpPrDa+KC/Yfu88P9hKKj0LmBiREA
        """)

    /// OSX/libsecurity_keychain/regressions/kc-43-seckey-interop.m `keyDataBase64` (also
    /// secdxctests/KeychainAPITests.m `keyDataBase64`): the RSA-2048 private key of `kc43Cert` (PKCS#1).
    static let kc43Key = bytes(
        """
        MIIEogIBAAKCAQEAubvYJ2BA80CFbu8guNFXF02dNQ/QiaA/5h+trXmxBxHX1Ty1inqvrgB5yen0yCUL5LGiEjscIjqLBY7SN9Jm
        3ui2f6CttsGF/jlMCoQGI2UD8kWH7miXv+dhdM5n1Eifik21Ga121VRZmuMT36YOG6bb7RpBSVp7n7xBB4pjhpjuTuvZVwNB4rdc
        i1NPwDEKyDJmU/IG/CzGRj2Xmq0/dCoQm0xwMY3AX7MGWHi/Kt8bhFR1wuxDLOpqvCIGS+5s0gZqwn5gQCDtFY1tpL5stDRcZIyH
        h1EobWG9daGGMnx7s/tb69cuhSKC5g3oylZ8H3LjW+eOZtuqPs/5vS7/WwIDAQABAoIBAGcwmQAPdyZus3OVwa1NCUD2KyB+39KG
        yNmWwgx+br9Jx4s+RnJghVh8BS4MIKZOBtSRaEUOuCvAMNrupZbD+8leq34vDDRcQpCizr+M6Egj6FRjEwl+7Mh+yeN2hbMoghL5
        52MTv9D4Iyxteu4nuPDd/JQ3oQwbDFIL6mlBFtiBDUr9ndemmcJ0WKuzor6a3rgsygLs8SPyMefwIKjh5rJZls+iv3AyVEoBdCbH
        Bz0HKgLVE9ZNmY/gWqda2dzAcJxxMdafeNVwHovvBtyyRGnA7Yikx2XT4WLgKfuUsYLnDWs4GdAa738uxPBfiddQNeRjN7jRT1GZ
        IWCk0P29rMECgYEA8jWig1Dph+4VlESPOffTEt1aCYQQWtHs13Qex95HrXX/L49fs6cOE7pvBh7nVzaKwBnPRh5+3bCPsPmRVb7h
        k/GreOriCjTZtyt2XGp8eIfstfirofB7c1lNBjT61BhgjJ8Moii5c2ksNIOOZnKtD53n47mf7hiarYkwxFEgU6ECgYEAxE8Js3gI
        POBjsSw47XHuvsjP880nZZx/oiQ4IeJb/0rkoDMVJjU69WQu1HTNNAnMg4/uRXo31h+gDZOlE9t9vSXHdrn3at67KAVmoTbRknGx
        Z+8tYpRJpPj1hyufynBGcKwevv3eHJHnE5eDqbHxynZFkXemzT9aMy3R4CCFMXsCgYAYyZpnG/m6WohE0zthMFaeoJ6dSLGvyboW
        VqDrzXjCbMf/4wllRlxvcm34T2NXjpJmlH2c7HQJVg9uiivwfYdyb5If3tHhP4VkdIM5dABnCWoVOWy/NvA7XtE+KF/fItuGqKRP
        WCGaiRHoEeqZ23SQm5VmvdF7OXNi/R5LiQ3o4QKBgAGX8qg2TTrRR33ksgGbbyi1UJrWC3/TqWWTjbEYuU51OS3jvEQ3ImdjjM3E
        tPW7LqHSxUhjGZjvYMk7bZefrIGgkOHx2IRRkotcn9ynKURbD+mcE249beuc6cFTJVTrXGcFvqomPWtV895A2JzECQZvt1ja88uu
        u/i2YoHDQdGJAoGAL2TEgiMXiunb6PzYMMKKa+mxmFnagF0Ek3UJ9ByXKoLz3HFEl7cADIkqyenXFsAER/ifMyCoZp/PDBd6Zkpq
        LTdH0jQ2Yo4SllLykoiZfBWMfjRu4iw9E0MbPB3blmtzfv53BtWKy0LUOlN4juvpqryA7TgaUlZkfMT+T1TC7xU=
        """)

    /// keychain/securityd/Regressions/secd-83-item-match-policy.m `secdTestSMIME1BASE64String`.
    static let secd83SMIME1 = bytes(
        """
        MIIDUzCCAjugAwIBAgIBATANBgkqhkiG9w0BAQsFADBHMRQwEgYDVQQDDAtUZXN0IFNNSU1FMTELMAkGA1UEBhMCQ1oxIjAgBgkq
        hkiG9w0BCQEWE3Rlc3RjZXJ0MUBhcHBsZS5jb20wHhcNMTYwNDA3MDYzNDM0WhcNMTcwNDA3MDYzNDM0WjBHMRQwEgYDVQQDDAtU
        ZXN0IFNNSU1FMTELMAkGA1UEBhMCQ1oxIjAgBgkqhkiG9w0BCQEWE3Rlc3RjZXJ0MUBhcHBsZS5jb20wggEiMA0GCSqGSIb3DQEB
        AQUAA4IBDwAwggEKAoIBAQDHedMsbVecoqyZwoTTE85bm3QImVz45HYFGKq/L6E5dVPamiiMRZ2BX1XnIdthbIRZhg7OU0zk2KiQ
        Kyg+bjnk+l3ZW/C6N3sAx4blq/UemOg6XtdI1Iq/HwLw5qJW8hiy9INA2nMJnSXZrnM6Ezsj92l0PQ2+8oOa95sLfi2e9NJZONES
        Y/XNyc6tclaUYHSQR+BAzllKRorrqvpa3T2o6lmcUG+29TsRUHth6OHZLccMoA6ITk8Eq/vlAsaH4BnD7rFfBwcE/GhkkbZrmH1x
        aFziEIwMx3uvhsQCpspt50Pf9RWcsj3/bD4aIPUNLRkyn49ZE6MhOmMp7p5UCXapAgMBAAGjSjBIMA4GA1UdDwEB/wQEAwIHgDAW
        BgNVHSUBAf8EDDAKBggrBgEFBQcDBDAeBgNVHREEFzAVgRN0ZXN0Y2VydDFAYXBwbGUuY29tMA0GCSqGSIb3DQEBCwUAA4IBAQAm
        3pbBBqrzR3tTwZrjLORH72PY3f/4IvhYNadP3A70Smln0xC+BIjxqTPP1YXcvwY2PfIaNkXrxaqM8/mbR5MjiDQ7SZz5jfYTuJP6
        +Z9Y9nL2S/62DyhVwJcRskrDCArkaXz1b2n6yEWCw4L5uJmwdRruW5D7mF10f2GtNvGlq5Wj7csKjw6Pwh8kgG3lnGqrWaNfiJku
        49lbAugZr2bryQvzxi3q0Kk0LBlxVt1fMae/H/cO9nwlqe+mOclJ96zRPWnXKNMduDf00OIp131gqAknXQwSJZoI2mvX9deFdaaS
        21T1COhvPN+dL7D5umX85NGzoLN2svzihAhMkIK+
        """)

    /// keychain/securityd/Regressions/secd-83-item-match-policy.m `secdTestSMIME2BASE64String`.
    static let secd83SMIME2 = bytes(
        """
        MIIDUzCCAjugAwIBAgIBAjANBgkqhkiG9w0BAQsFADBHMRQwEgYDVQQDDAtUZXN0IFNNSU1FMjELMAkGA1UEBhMCQ1oxIjAgBgkq
        hkiG9w0BCQEWE3Rlc3RjZXJ0MkBhcHBsZS5jb20wHhcNMTYwNDA3MDYzNjUzWhcNMTcwNDA3MDYzNjUzWjBHMRQwEgYDVQQDDAtU
        ZXN0IFNNSU1FMjELMAkGA1UEBhMCQ1oxIjAgBgkqhkiG9w0BCQEWE3Rlc3RjZXJ0MkBhcHBsZS5jb20wggEiMA0GCSqGSIb3DQEB
        AQUAA4IBDwAwggEKAoIBAQDk4emo4RNYI7WXtdOjFBgxIaLf80zTH0peza4PMJO7fC+KtStC4KpvRWbIhm+CcvJjpT4jpScKuHis
        MgfPxfEcK7jv8kRU7waAaW3H5o56YBX+Qen+fA18ulrwwzEHO4KBK7kXT9oSLy1m09u17yf46x3NPshrg0JpTh4F1jPtEK7HPZnz
        oJMx8i69Rd9zfddm+Gs0TPFtqaUQ9wuKeKr/Vda9kaPo98UabpiXx94sy/rtlULiUY8Nh993KUDcGPI2LTmQSeR8EB37AEoeBm8m
        RR9IGdZNvkDPEXIoilw1HVMsczxCEVV0HOAcFh+HfvVsWGYySentCpOe95r4/CSbAgMBAAGjSjBIMA4GA1UdDwEB/wQEAwIHgDAW
        BgNVHSUBAf8EDDAKBggrBgEFBQcDBDAeBgNVHREEFzAVgRN0ZXN0Y2VydDJAYXBwbGUuY29tMA0GCSqGSIb3DQEBCwUAA4IBAQAA
        Vic5KfpUoy7Bu8dZ8qc+1RM/wXscK/2906/ZD7cndFSM2X7x+oRB78mtbmHlvfDC5FC5OAlxpY9S5ITtK/R67wi6LwOK3TkoQzev
        SqAkl8ylTfh3Sp/bwCRpVJo1yFCBdNnq4clEktu2+W6YSczjrDieN6CvhRE+AQ3sYNpxeaRJUS8PtNdPmYNnPdLK9VLB8Fg2WIHT
        AYV1nvai8Dvj1Fk6ukJGQxLJmXs6qUT8O+VE0CiVI5wspX+XSO/FSXiYLzFsLSRQNdWOO6U0zJlVpa1UoiRZCiVHnkDcYAMKB66h
        NUvRPtZYAguH7Ipg5bSld6fr8b43Vt2lkDM1iZAK
        """)

    /// keychain/securityd/Regressions/secd-83-item-match-policy.m `secdTestSSLClient1BASE64String`.
    static let secd83SSLClient1 = bytes(
        """
        MIIDPTCCAiWgAwIBAgIBAzANBgkqhkiG9w0BAQsFADBMMRkwFwYDVQQDDBBUZXN0IFNTTCBjbGllbnQxMQswCQYDVQQGEwJDWjEi
        MCAGCSqGSIb3DQEJARYTdGVzdGNlcnQzQGFwcGxlLmNvbTAeFw0xNjA0MDcwNjM5NDBaFw0xNzA0MDcwNjM5NDBaMEwxGTAXBgNV
        BAMMEFRlc3QgU1NMIGNsaWVudDExCzAJBgNVBAYTAkNaMSIwIAYJKoZIhvcNAQkBFhN0ZXN0Y2VydDNAYXBwbGUuY29tMIIBIjAN
        BgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvKF0N/zPBmahsQwcSrCqiUavXVLj5DEVricqEmOPd77Zr3CVf4B/zDEFqyLh2cg1
        5WBlYV0hG8TDa49yOlJ8JZ8d58n/0A0p6Qq27/S1qc7DvpwVqSwwUl5S3DXSrVBxnJKz20Q3f2yNnHv3hJvp7dMI4C+rQK/uSy2s
        yJalTSVUXMLjQegfv3EVBVTL8omb4Myo7HbjYhEUw/faM9NXwUNs0foR2cRvpkqJPi7r6gM/a+4T2SlSst0U+ByPgaFy2QJPPuzQ
        SEa7vA5fmsMDSQ7BHnla1YVjloWh4LHdB32BGmjIwyHYfn5hqKl37V+oASqLeWVD1cK/2dG6nl2AmQIDAQABoyowKDAOBgNVHQ8B
        Af8EBAMCB4AwFgYDVR0lAQH/BAwwCgYIKwYBBQUHAwIwDQYJKoZIhvcNAQELBQADggEBAEIs0r+XYOl2Tt1dcRVgTXoFT8w4xAJ7
        JeErhBqEbhPnQ4i/7GGnd20wL3keCLeLvIJm+KOI+OMjLft276MGn6VEN33o8GKt53m0Mz/mS36xdmAdxBu0t1dh2bnBRYh+asD2
        gz3AFnlUDOC5DqRZ5yz0FwK9UPpN6KqBZc0YbzS/p/cc3UkzywdAX01RTzmxqGgrl5CPruIECRSieykl7fgmqitlLnYms/QvaS96
        3cFvIM6XJdXltbED6GkVc39ab/lXFYfkSC4Wx2LGeP5NEBqeEfLpKHFOuNVo6dks8OGXXfW14jhCRaLJi6P3kh9jfTXAvW8Fw0mG
        oNciTLPKTK4=
        """)

    /// keychain/securityd/Regressions/secd-83-item-match-policy.m `secdTestSSLClient2BASE64String`.
    static let secd83SSLClient2 = bytes(
        """
        MIIDPTCCAiWgAwIBAgIBBDANBgkqhkiG9w0BAQsFADBMMRkwFwYDVQQDDBBUZXN0IFNTTCBjbGllbnQyMQswCQYDVQQGEwJDWjEi
        MCAGCSqGSIb3DQEJARYTdGVzdGNlcnQ0QGFwcGxlLmNvbTAeFw0xNjA0MDcwNjQxMDFaFw0xNzA0MDcwNjQxMDFaMEwxGTAXBgNV
        BAMMEFRlc3QgU1NMIGNsaWVudDIxCzAJBgNVBAYTAkNaMSIwIAYJKoZIhvcNAQkBFhN0ZXN0Y2VydDRAYXBwbGUuY29tMIIBIjAN
        BgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAneZGoEDMw7ZdqT5jVA+omajFDixAd9HB5kaw1kUxd6MuFTn95WhLyI84oa8Fvmbx
        GXZ2zBxtZF3hrm2xHPJB0bwpCfzR0GlaoZKbgUzvRx8x+i/+tEkbFnlOlmU1ZW7cGWyu6bI60rfPZ5VwEe6/JgFaKTRdOACxzIaY
        DJhS2S2LSzgrom27k424LbCWtfwaqEuiPtF3hGmuCAfrdxJ9Pr/qBcKCjkbWdrtIYhsEJzN8oLwdLduy8jM+fiAXwW1skEgIQa7B
        o4zJRIsT6fG0U/0HeSESxGfghN3dBCaWGM7yB1Cahrk8pfalhs5IFmFhNy/+UtpBYhO1DGbr4ijfHQIDAQABoyowKDAOBgNVHQ8B
        Af8EBAMCB4AwFgYDVR0lAQH/BAwwCgYIKwYBBQUHAwIwDQYJKoZIhvcNAQELBQADggEBAFrDD3o6uG8lU1NxLa+i0zSihFDv0b3y
        516AScUAf6jpuW0Wfhpqb/U1Gk91Zo2ZBFtQ5WniLf4wGZRFeeUOv6PTHdkBz7PtYa/nzyXOlUBdTuZ0w52e2+mEJfCpwhR7MVBv
        s3QmtXpg7H/lSePbbun/tl8fYRMzcycLWH9Yrz+TluNdS9/Qa3SRgXo4JUKGl8F/nvXohuz2JyGLk43l3Cq9z68IKv7c8SA448E9
        d+MwwsYc2YcHf9aZAwu81aP5c3XOSaWvP3uzATxb/w6tIhs7O8iHgyq7mRy2iQqACDxpcILKGEu4advaBPmB14kSz/HUS4Vahafa
        yXxhCQPqYtc=
        """)

    /// keychain/securityd/Regressions/secd-83-item-match-policy.m `secdTestSSLServer1BASE64String`.
    static let secd83SSLServer1 = bytes(
        """
        MIIDYzCCAkugAwIBAgIBBTANBgkqhkiG9w0BAQsFADBPMRwwGgYDVQQDDBNzZWNkdGVzdDEuYXBwbGUuY29tMQswCQYDVQQGEwJD
        WjEiMCAGCSqGSIb3DQEJARYTdGVzdGNlcnQ1QGFwcGxlLmNvbTAeFw0xNjA0MDcwNjQ3MThaFw0xNzA0MDcwNjQ3MThaME8xHDAa
        BgNVBAMME3NlY2R0ZXN0MS5hcHBsZS5jb20xCzAJBgNVBAYTAkNaMSIwIAYJKoZIhvcNAQkBFhN0ZXN0Y2VydDVAYXBwbGUuY29t
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxWOhlJjFJ+Fyp0KRCb4Dx20TMf+/gYaNwN9/i0+YNi3wb5mAepO7gN8V
        oZhYf+fWO6eUGzxFwggCK5b2plZ5dW/3su5B/K5onYxE7wWPsHGfw/rolpkp84fgj2aSUBQnOuwhFvot1dmFUeh55SaIv56sLw5a
        IbW/xWP6Mhc8kpf8ji5xpFA5JZxmbBZi4iG4E4395DD3lXE1jN4B3aY6gknnA6BYvngvxH/2whitKTDKCqsnWPxGqbJ5kg+0julk
        gYVEPlfdus/MNTB/c6llKiqIkwNuzPPaHq9VRNnPctEljVJcch7ZwqbluTY+AwRGXuY0RpJ9S6+uEPaQbuDX3QIDAQABo0owSDAO
        BgNVHQ8BAf8EBAMCB4AwFgYDVR0lAQH/BAwwCgYIKwYBBQUHAwEwHgYDVR0RBBcwFYITc2VjZHRlc3QxLmFwcGxlLmNvbTANBgkq
        hkiG9w0BAQsFAAOCAQEAfJqxsLI03nm9YSVeOqcyOB+Cj41WmNCgaSvftGmPtmz4QLbEYTYDqrv2zTvTtmS5Z1ugy6XeA4sUx9j9
        oKJq9+FRkfxQTDOHz7e8dqUvF0ToLPRo0dlGv55FsbVgOM8vKCeqra12FWvSUHXhUn7tC+lQDDiDs5st4NkVRgRsCYHUIfYtYBWA
        Bd5Z6kWAR33qysxbxx4cHLGb/1CCfsPF+/IQYS1sF9u+q/Jvbe6Oylyb1qxoe4dcsub4AYgS+yHItcQeZksItwYWLdAQUat7r6bb
        MLp+EN2DJRzrIQl+Kf3nzSKRBW6HTJR19+6D/pum0q8A0A3chsMW34rvMS469w==
        """)

    /// keychain/securityd/Regressions/secd-83-item-match-policy.m `secdTestSSLServer2BASE64String`.
    static let secd83SSLServer2 = bytes(
        """
        MIIDYzCCAkugAwIBAgIBBjANBgkqhkiG9w0BAQsFADBPMRwwGgYDVQQDDBNzZWNkdGVzdDIuYXBwbGUuY29tMQswCQYDVQQGEwJD
        WjEiMCAGCSqGSIb3DQEJARYTdGVzdGNlcnQ2QGFwcGxlLmNvbTAeFw0xNjA0MDcwNjQ1NTFaFw0xNzA0MDcwNjQ1NTFaME8xHDAa
        BgNVBAMME3NlY2R0ZXN0Mi5hcHBsZS5jb20xCzAJBgNVBAYTAkNaMSIwIAYJKoZIhvcNAQkBFhN0ZXN0Y2VydDZAYXBwbGUuY29t
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAmI95AUYia7UATWdqAUHQGge1vK11u5CXuQm0rpvKMTwzSD/HkEX6jFnC
        oJ4J+3FUpeY70ZhWfnwiumGmMB6RfI3S2jIWvyrMgIRkiPhiLh5ZDmV6K/w2MVzOEiPRKPVcxgLJm8CF2/EdJnCMmJG8pvWyTwah
        W43WT7oAj5KdnqSCtysEZ5pOKR+U4S89x0mUuGXc6K3xVWSfM0Az2tepWc11dtuLWPSe5vCU3JuZzFfXsUqgHInWnBNjPfQrgI9L
        E5EIqslA5dAZLLlr4+OLCmENi6qwQ6GIvzR9S30gAk4Mo/H+RUeqqimkMD8JUL9D72FQdqcC1cFgsADbxslLgwIDAQABo0owSDAO
        BgNVHQ8BAf8EBAMCB4AwFgYDVR0lAQH/BAwwCgYIKwYBBQUHAwEwHgYDVR0RBBcwFYITc2VjZHRlc3QyLmFwcGxlLmNvbTANBgkq
        hkiG9w0BAQsFAAOCAQEAC3BDk+HtpO+FKmgx0BfNz4gXR3NjDoe0Ms2toC2YAzR33Z/VycBjLbQ0gfQHyGHYQPYzGgurYPypyzUq
        KJJVFClmj/VXaNANiFhegHPXRKPyFuw5wbxKE2tgCq3sJ+x4RbDoyGXZz+7bfvWbjynpgiXWWx1V1ABop1UByiYTWp7zVDLTEzYf
        VGkisr0sV3qoMrKxYBgjUJjXM6p5DeIFr8HaB6lSSqSlCek3oMBfgjEIurpU3LhcGeOn2ItFS8F3wj1YqLvxzgzn3LfPjUOENXI+
        Fy8lPgibiEeqAcT7//NwleuNQfYL5eGVzuAxcNG9b1NeDkG5t1RQgUL5JwP8bg==
        """)

    /// keychain/SecurityUnitTests/SecItemTests.m `_test_sign_no_email_p12` (password "nick").
    static let secItemTestsSignNoEmailP12 = bytes(
        """
        MIIKqwIBAzCCCnIGCSqGSIb3DQEHAaCCCmMEggpfMIIKWzCCBMcGCSqGSIb3DQEHBqCCBLgwggS0AgEAMIIErQYJKoZIhvcNAQcB
        MBwGCiqGSIb3DQEMAQYwDgQIMnthZcOS0FsCAggAgIIEgMK3zBS7Ctrdzy7OBttM77Ou5y62mvh5MvLXef+FCLMeCT8w+LWkKBwm
        WKLf8/y6VIAkcv90Li5zR/GFIFWqIGIFMMQZ5uKi1XCGa+Jayn1DxPFeYtjnSKutoKUBXcTw8Bfbi0a0NNqY6zKPxmVRda7pFwQe
        ZY6CG2IR+uUxyRi+beo2Uwnn6Kqwik3cVPXvoI5gFrjXSLJltfE4OJlUqE8kxMwvYFztKomr/ldJkTWZeTFV2QQls3UUrKRoE4CO
        yrRi9kI+QxxI0IIo1mVlPBzKens1+IufJDeO0TsxFHLAbZhdj/f98b5uryDj7NauAyhgFD2wMBCjvC7dh0KLV6Al2UpQf5i4SFa+
        VA8aDxBiUe2a7WeFtl0JMNZjNFSe6+TeL0nu7cHZXE4zr2LxPxT+Uro+f8137v/x7Y6ZW5NPO6MQnJ3Awu2oY5SoMo1AQAlZrZjf
        68Rxd8NyDV8nx+XEpMME333V2gVhDUjQcTP4HFvexe4eDnzxqpluePK3uSGqfQfUpL6fsnJuoCYEPyg+vcrV8kV4AZkTNafmvHKk
        aKHTQ/btOcMSmSCeWfQV9w++z3baYpBmFv2xFgNRn0rMnKn8zAPLrS0nWLyA3uv08EXW3lrqUiHyVvlnUmxkxWTQa08hEJ36x6yw
        ICWRQq+VEhVu5IHOJyNOZUk/sQmYfOVKv8+gMzRpZRuqgCwMdmy9qP5qlHtNrP7T8YVDLkmelBzx3jjmboi0m95lPIcM7xmchF6X
        Vxw5GLuQIw8iHbiQuu3DYJ/7iJdRnGtWDpwLJO8LYn1mqTkzzAucBM+0srb6XSKZH9f/EB1oeWRcZzKXmzWGl5ZQHTttfEIXzC+U
        cC4vKizfMwjQuOb8aCVeXOTZ+cG086/YjyXWhNbzx1InDUZ54FxghX5kYAHMxGAB0dBu+gFga1eULvPkznvouegqWxTHnWOZfaDu
        a0D2dG9pgjp9xfoXchlgGqVxgsxG7H4nlmxMpXXnEvczPgDnHA3/CxAO/w6Q5mzcNDNzfNVBaVyPpnTrJ+K93wXk/qSaR4AQjlq3
        ye3IRGeEs8pvGtef0cyGVssxYUpWAEkWEMI8BPiCqoperoREpcp/Q3FStu3QVvEYO/K+aHd55yD8eKVjXxJ+zMJKy/go3GMiBxI5
        9iryQ6PmV/tPOEIInbV8+mR4hW5qY34Mqo1quw7RBKOCtJtoqmj/QM3nLwfKzA7H7EtUevuJT/IuBE9mOZ5Crl60jiyu61+VdX0O
        s1K+Rgbtgala6Yys2LgoqNsg8Rs9okkgxSPaLVh585nJFovHXbVwRUggTy+bkqb3dTAihLhhfI9tN9axSsLWBSk2j3qeAUFc+N2r
        i5tKHUJWP1kLMnSXKj+ui6sPoJPAK6o/pjrhbKpn5Cie0C6JHC9vKkm+WN5hqGf+5AmJy2K5hx3bEBnjQSgV87VDCAKRRPk1BJj0
        grykR8kHwN3hWIm0oz9o0YVskCSDup48Tr6zOsKxfDY6HGcRMFBnNNRPrlDrvARLywHU2mzcc5NgQwzThTCCBYwGCSqGSIb3DQEH
        AaCCBX0EggV5MIIFdTCCBXEGCyqGSIb3DQEMCgECoIIE7jCCBOowHAYKKoZIhvcNAQwBAzAOBAj6xz7rwsGQOwICCAAEggTIgvsd
        f+AHnrJ7ZYPSHCXr0jT/MowO83/u3GefybKUUZXSJ3YmzEppinIooeTW5cBpZvCRYyq8dN++L2X9oxY4PUjgxGD1rzaLgzJOD+Yy
        ngqDoXoxwH1AVXYa/9LNpmMWMlGIpzDliGowUNCyrGQ2NfbTB4ZLVvpo0234bjdmPTXH2l99iMikiXsAEgB/qLZfKSMGaPgU+q8v
        QtJL/XImsuNKNJUWJtZ/jIemYOK7D8YgpJ8V9Tpnncz1bVSSGQCjR/zPVqS7jqId9vhw0/uwBitda8Dc39gm0YyVuCdpmfQxR+Hf
        5XvQZnSKozULMXd7wpZ2UwSJG/poyBZAuQQaDyPaofmwxcJmcQS3S2HEAALQ2HIjd/5h8/WYW7eHLpn+S25DA1t2sVOzOZtYW+Sq
        +WcKPUQHcM9BcO7QFah2m3IdxwXgmw9EpJXHzPl7khC1IY6Wmlr7Uf/A/MQNqg5GiyIJTM0Nv3yIIEgW2LbfPgTrrPz/oZ8xLL6n
        nJwfPDiz+jHTojpaubGxDqTVwusbI66OMHH/gRousxncA1VY+K9LAdXZUusuko4os6/t69QoDC1BIV/cutAA+D6WRVwrL/6eSalu
        thhwmGe4pldRG4Hweji8xrekm+6UBpToTMJ//Hbwwvevh9Mqz5nJ8AG2WyjTwHvfW1EzyORU85PnCiHJ9otWQVQJDOiIAxPfIfxI
        9VLqQg0mOmvnhfCj4LGsHhEWvNyDBcbCJHSgrIyuBc3iy8ywiO8DoSQkNiWJP6+UACodjqv6TL6b4Row+ZyuHaYQnvJMS21ZbvBp
        oCildm6kcxeJ4aWeE1+fUxm7505GnM7w1+WWo7LC3tahErZJd0QJPX3xZYxy8EmE7vUE3jwcgki6kMqJ8EL/6WGI/pW887ccyfQ+
        wTK7i8t4lfwk6qLbfCYLd365e9YQ0IMLrfGcpYQRgz4k2adkHn7bipsWH5oC6GB9Vyt09zuT61N9X7TU4T0A80Jcbw3paJVfjyuW
        idpducp5yKO5K0mMGdeKPqvVDN9bHazolf4VUcYmn5Yqd4zprOEUFR0GGguyKD2nVfnnxBbhTSfoIGV5bEYhsebgQDuTq2hOpXdo
        dKh84j4AderCMzTjzYr27DiQL9Oa647SU2lLU7S9au2GEtpMKD5AbDxECLsv3PTuYR0bHlxxeyvj0imrPOhE0M4hSN7yurecOhT8
        60mt1gj6vfbBlrnjubdARzg/IrxZF4HTDgAl1eKUeKoM2Uu0BLe6ijF2LzM1QtTUCVNE7nsspqDOjenyULpNoIe3j8WTQNBpJipU
        EjoNkFvr0pFugk0B8jiV2Iy/O8bi8QP7iIv+Qmxxxd0AmV/DEHZnpi9plADiLqfO33TxsqvBmX9/JRSENKM/wRDaNvjnUVc4pHUp
        MYZWmeMamFZzBePMWRhldUZf8+WvtHsN7U5G1Lp1mkYsNL3QbNxqlV4vM9b+s7Is6G8aMCbbTf+09lNuZOmLwmWsinxB/gDyOXL9
        vEVS0pQ/VZGHkCSQ521WN27PcTEmbhYVwYIiNK30htcM4o1NDt/MQjH+/tvoM3XUnPvo13PDDspX3VYZpozy/cQX7SECTJpfJnKp
        3Cua+ecxZy0ZUrhOmxhDKupw4mlDMXAwSQYJKoZIhvcNAQkUMTweOgBIAGkAIABFAHYAZQByAHkAYgBvAGQAeQAgAEkAdAAnAHMA
        IABNAGUAIABEAHIALgAgAE4AaQBjAGswIwYJKoZIhvcNAQkVMRYEFHTQF5Ia3EkF05VxfAnPIFzUfVEwMDAwITAJBgUrDgMCGgUA
        BBSskEH9oZRe4hhkFXRGX7gGw34zsgQITXAvpKGVYhICAQE=
        """)

    /// The bytes of base64 text spread over lines.
    private static func bytes(_ text: String) -> [UInt8] {
        Base64.decode(String(text.filter { !$0.isWhitespace }))!
    }
}
