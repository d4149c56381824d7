import { describe, expect, it } from "vitest";
import { classifyAddress, type BlockedAddressClass } from "./address.js";

const blocked: Array<[string, BlockedAddressClass]> = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "link_local"],
  ["169.254.0.1", "link_local"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["198.18.0.1", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fc00::1", "unique_local"],
  ["fd12:3456:789a::1", "unique_local"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf::1", "link_local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["[::ffff:a9fe:a9fe]", "link_local"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:192.168.0.1", "private"],
  ["::127.0.0.1", "reserved"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b:1::1", "private"],
  ["2002:7f00:1::1", "loopback"],
  ["2002:a9fe:a9fe::", "link_local"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["100::1", "reserved"],
  ["4000::1", "reserved"],
];

const publicAddresses = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "169.255.0.1", "2606:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];

describe("classifyAddress", () => {
  it.each(blocked)("refuses %s as %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each(publicAddresses)("lets public %s through", (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });

  it.each(["", "example.com", "127.1", "0x7f000001", "256.0.0.1", "1.2.3", "::ffff:1.2.3.4.5", "1:2:3:4:5:6:7:8:9", "gggg::1"])("refuses the non-literal %j as invalid", (text) => {
    expect(classifyAddress(text)).toBe("invalid");
  });
});
