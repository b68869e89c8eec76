// Taking a device URI apart: the scheme, and remote://HOST:PORT[/NAME]'s parts.
#include <cctype>
#include <stdexcept>

#include "tessera/registry/registry.h"

namespace tessera::registry {

namespace {

[[noreturn]] void bad(std::string_view uri, const std::string& why) {
  throw std::invalid_argument("device '" + std::string(uri) + "': " + why);
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

}  // namespace

DeviceUri parse_uri(std::string_view uri) {
  if (uri.empty()) bad(uri, "empty (devices: " + usages() + ")");
  if (uri.size() > 512) bad(uri.substr(0, 64), "longer than 512 characters");
  for (char c : uri)
    if (static_cast<unsigned char>(c) <= ' ' || static_cast<unsigned char>(c) >= 0x7f)
      bad(uri, "contains a space, a control character or a non-ASCII byte");
  DeviceUri u;
  u.text = std::string(uri);
  // SCHEME://REST or SCHEME:REST (xrt:0) or SCHEME alone.
  const size_t sep = uri.find(':');
  u.scheme = std::string(uri.substr(0, sep));
  if (sep != std::string_view::npos)
    u.rest = std::string(uri.substr(uri.substr(sep).starts_with("://") ? sep + 3 : sep + 1));
  if (u.scheme.empty() || !std::isalpha(static_cast<unsigned char>(u.scheme[0])))
    bad(uri, "expected a device name or SCHEME://... (devices: " + usages() + ")");
  for (char c : u.scheme)
    if (!name_char(c) && c != '+')
      bad(uri, "'" + u.scheme + "' is not a device name (devices: " + usages() + ")");
  return u;
}

RemoteAddress parse_remote(const DeviceUri& uri) {
  const std::string form = "expected remote://HOST:PORT[/NAME]";
  RemoteAddress a;
  std::string_view r = uri.rest;
  if (r.empty()) bad(uri.text, "no host and port: " + form);
  size_t host_end;
  if (r.front() == '[') {  // [IPv6]
    host_end = r.find(']');
    if (host_end == std::string_view::npos)
      bad(uri.text, "'[' without ']' around an IPv6 address: " + form);
    a.host = std::string(r.substr(1, host_end - 1));
    ++host_end;
    for (char c : a.host)
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
        bad(uri.text, "'" + a.host + "' is not an IPv6 address");
  } else {
    host_end = r.find(':');
    if (host_end == std::string_view::npos) bad(uri.text, "no port: " + form);
    a.host = std::string(r.substr(0, host_end));
    for (char c : a.host)
      if (!name_char(c)) bad(uri.text, "'" + a.host + "' is not a host name or address");
  }
  if (a.host.empty()) bad(uri.text, "empty host: " + form);
  if (host_end >= r.size() || r[host_end] != ':') bad(uri.text, "no port after the host: " + form);
  const size_t slash = r.find('/', host_end);
  const std::string_view port =
      r.substr(host_end + 1,
               slash == std::string_view::npos ? std::string_view::npos : slash - host_end - 1);
  unsigned long p = 0;
  if (port.empty() || port.size() > 5)
    bad(uri.text, "port '" + std::string(port) + "' is not a number from 1 to 65535");
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      bad(uri.text, "port '" + std::string(port) + "' is not a number from 1 to 65535");
    p = p * 10 + static_cast<unsigned long>(c - '0');
  }
  if (p == 0 || p > 65535) bad(uri.text, "port " + std::to_string(p) + " is not from 1 to 65535");
  a.port = static_cast<uint16_t>(p);
  if (slash != std::string_view::npos) {
    a.name = std::string(r.substr(slash + 1));
    if (a.name.empty() || a.name.size() > 64)
      bad(uri.text, "the device name after '/' must have 1 to 64 characters");
    for (char c : a.name)
      if (!name_char(c))
        bad(uri.text,
            "device name '" + a.name + "' may hold only letters, digits, '-', '_' and '.'");
  }
  return a;
}

}  // namespace tessera::registry
