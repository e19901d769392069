"""Client addresses: the address a request comes from (the connection's peer, or what
a trusted proxy says of it) and the client its per-address limits count against, by
network (an IPv6 /64 is one client)."""

from __future__ import annotations

import ipaddress
from typing import Final

from litestar.types import Scope

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ADDRESS_KEPT: Final = 64
"""Characters kept of a client address that is no IP address (a key of its buckets)."""
LOOPBACK: Final = "127.0.0.1"
"""The client the host's own addresses count as (127.0.0.0/8 and ::1: one host)."""


def ip_of(address: str) -> IPAddress | None:
    """An address as the service reads it, or None if it is no IP address. An
    IPv4-mapped IPv6 address (``::ffff:192.0.2.1``: an IPv4 peer of a dual-stack socket)
    is that IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def limited_as(address: str, ipv6_prefix: int) -> str:
    """The client whose per-address limits a request from ``address`` counts against:
    an IPv4 address as it is; an IPv6 address by its network of ``ipv6_prefix`` bits (a
    home or a host is given a /64: 2^64 addresses, one client); any address of the host
    itself as ``LOOPBACK``; anything else (no IP: a unix socket, a test client) as given,
    cut to ``ADDRESS_KEPT``."""
    if ":" not in address:  # IPv4, or no IP: read without a parse, as most requests
        return LOOPBACK if address.startswith("127.") else address[:ADDRESS_KEPT]
    ip = ip_of(address)
    if ip is None:
        return address[:ADDRESS_KEPT]
    if ip.is_loopback:
        return LOOPBACK
    if ip.version == 4:
        return str(ip)
    host_bits = 128 - ipv6_prefix
    network = ipaddress.IPv6Address(int(ip) >> host_bits << host_bits)
    return f"{network}/{ipv6_prefix}"


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` names the client (``SHUTBOX_TRUSTED_PROXIES``:
    addresses or networks)."""

    def __init__(self, proxies: list[str]) -> None:
        self.networks = [ipaddress.ip_network(p, strict=False) for p in proxies]

    def client_address(self, scope: Scope) -> str:
        """The address the request comes from: the connection's peer, or the first
        address in ``X-Forwarded-For`` not added by a trusted proxy when the peer is one."""
        peer = (scope.get("client") or ("unknown", 0))[0]
        if not self.networks or not self.trusts(peer):
            return str(peer)
        forwarded = [
            part.strip()
            for name, value in scope["headers"]
            if name == b"x-forwarded-for"
            for part in value.decode("latin-1").split(",")
        ]
        # The nearest address a trusted proxy did not add is the client's.
        for address in reversed(forwarded):
            if not self.trusts(address):
                return address
        return str(peer)

    def trusts(self, address: str) -> bool:
        ip = ip_of(address)
        return ip is not None and any(ip in network for network in self.networks)
