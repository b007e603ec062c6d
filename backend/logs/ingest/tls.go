package ingest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// serverTLS returns the TLS configuration of a TCP or HTTP input, or nil
// when TLS is off. Without a certificate and key file it serves a fresh
// self-signed certificate, as Graylog's AbstractTcpTransport does.
func serverTLS(c tlsConfig, now time.Time) (*tls.Config, error) {
	if !c.enable {
		return nil, nil
	}
	if c.keyPassword != "" {
		// Go's standard library reads no encrypted private keys, and the
		// legacy PEM encryption it once read is insecure.
		return nil, errors.New("TLS: encrypted private keys (tls_key_password) are not supported; configure an unencrypted key file")
	}
	var cert tls.Certificate
	var err error
	switch {
	case c.certFile == "" && c.keyFile == "":
		cert, err = selfSigned(now)
	case c.certFile == "" || c.keyFile == "":
		err = errors.New("TLS: tls_cert_file and tls_key_file must be set together")
	default:
		cert, err = tls.LoadX509KeyPair(c.certFile, c.keyFile)
	}
	if err != nil {
		return nil, fmt.Errorf("TLS: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	switch c.clientAuth {
	case "optional", "required":
		pool, err := certPool(c.clientAuthFile)
		if err != nil {
			return nil, fmt.Errorf("TLS client authentication: %w", err)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
		if c.clientAuth == "required" {
			cfg.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
	return cfg, nil
}

// certPool reads the trusted client certificates from a PEM file or from
// every file of a directory, as tls_client_auth_cert_file allows both.
func certPool(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, errors.New("tls_client_auth_cert_file is empty")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		files = files[:0]
		for _, e := range entries {
			if e.Type().IsRegular() {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	pool := x509.NewCertPool()
	n := 0
	for _, f := range files {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if pool.AppendCertsFromPEM(pem) {
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("no PEM certificate in %s", path)
	}
	return pool, nil
}

// selfSigned makes a certificate valid for a year, for inputs with TLS on and
// no certificate configured.
func selfSigned(now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host, "localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
