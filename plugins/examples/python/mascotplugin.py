"""Serves a mascot judge or metric plugin the way hashicorp/go-plugin expects.

serve() is everything a plugin in Python needs besides its own Judge or Metric
servicer: it checks the magic cookie, agrees on the protocol version, starts a
gRPC server on 127.0.0.1 with the services go-plugin's host calls (health
check, controller), answers the host's AutoMTLS, prints the handshake line on
stdout and returns when the host asks the plugin to shut down. docs/plugins.md
explains each step.

It imports the stubs genstubs.sh generates (goplugin_pb2, health_pb2).
"""

import base64
import datetime
import os
import signal
import sys
import threading
from concurrent import futures

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

import goplugin_pb2
import goplugin_pb2_grpc
import health_pb2
import health_pb2_grpc

# mascot's go-plugin handshake (plugins/internal/wire/handshake.go).
COOKIE_KEY = "MASCOT_PLUGIN_MAGIC_COOKIE"
COOKIE_VALUE = "b3c1a5f0-judge-metric-v1"
# go-plugin's own protocol version, and mascot's (the v1 in mascot.plugin.v1).
CORE_PROTOCOL_VERSION = 1
APP_PROTOCOL_VERSION = 1


class _Health(health_pb2_grpc.HealthServicer):
    """Reports the service "plugin" (go-plugin's name for the whole plugin) as SERVING."""

    def Check(self, request, context):
        if request.service not in ("", "plugin"):
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown service %r" % request.service)
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


class _Controller(goplugin_pb2_grpc.GRPCControllerServicer):
    """Lets the host end the plugin: Shutdown wakes serve(), which stops the server."""

    def __init__(self, done):
        self._done = done

    def Shutdown(self, request, context):
        self._done.set()
        return goplugin_pb2.Empty()


def _certificate():
    """A fresh self-signed certificate for "localhost", as PEM key, PEM cert and DER cert."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    usage = x509.KeyUsage(digital_signature=True, key_cert_sign=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          crl_sign=False, encipher_only=False, decipher_only=False)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(usage, critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return key_pem, cert.public_bytes(serialization.Encoding.PEM), cert.public_bytes(serialization.Encoding.DER)


def _fail(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def serve(register):
    """Serves the plugin until the host shuts it down.

    register(server) adds the plugin's own servicer (Judge or Metric) to the
    grpc.Server.
    """
    if os.environ.get(COOKIE_KEY) != COOKIE_VALUE:
        _fail("This program is a mascot plugin: mascot starts it for a judge or metric whose\n"
              "`command` names it in an experiment. It is not meant to be run by hand.")
    offered = [v for v in os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "").split(",") if v]
    if offered and str(APP_PROTOCOL_VERSION) not in offered:
        _fail("mascot offers plugin protocol versions %r; this plugin speaks %d" % (offered, APP_PROTOCOL_VERSION))
    # Ctrl-C in a terminal reaches the whole process group; let mascot close
    # the plugin instead of dying under it mid-call.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    done = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    register(server)
    health_pb2_grpc.add_HealthServicer_to_server(_Health(), server)
    goplugin_pb2_grpc.add_GRPCControllerServicer_to_server(_Controller(done), server)

    client_cert = os.environ.get("PLUGIN_CLIENT_CERT", "")
    cert_field = ""
    if client_cert:
        # AutoMTLS: serve TLS with our own certificate, accept only the
        # host's, and send ours back in the handshake (base64, no padding).
        key_pem, cert_pem, cert_der = _certificate()
        creds = grpc.ssl_server_credentials([(key_pem, cert_pem)], root_certificates=client_cert.encode(),
                                            require_client_auth=True)
        port = server.add_secure_port("127.0.0.1:0", creds)
        cert_field = "|" + base64.b64encode(cert_der).decode().rstrip("=")
    else:
        port = server.add_insecure_port("127.0.0.1:0")
    if not port:
        _fail("cannot listen on 127.0.0.1")
    server.start()
    sys.stdout.write("%d|%d|tcp|127.0.0.1:%d|grpc%s\n" % (CORE_PROTOCOL_VERSION, APP_PROTOCOL_VERSION, port, cert_field))
    sys.stdout.flush()
    done.wait()
    server.stop(grace=1).wait()
