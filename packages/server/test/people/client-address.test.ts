import { describe, expect, it } from "vitest";
import { addressKey } from "../../src/http/client-address.js";

describe("addressKey", () => {
  it("keeps IPv4 addresses and turns IPv4-mapped ones into them", () => {
    expect(addressKey("203.0.113.9")).toBe("203.0.113.9");
    expect(addressKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(addressKey("::FFFF:203.0.113.9")).toBe("203.0.113.9");
  });

  it("counts IPv6 addresses by their /64 network, however they are written", () => {
    const key = "2001:db8:0:7::/64";
    expect(addressKey("2001:db8:0:7::1")).toBe(key);
    expect(addressKey("2001:0DB8:0000:0007:ffff:1:2:3")).toBe(key);
    expect(addressKey("2001:db8::7:1:2:3:4")).toBe(key);
    expect(addressKey("2001:db8:0:7:1::%eth0")).toBe(key);
    expect(addressKey("2001:db8:0:7::1.2.3.4")).toBe(key);
    expect(addressKey("2001:db8:0:8::1")).not.toBe(key);
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
  });

  it("drops a port and maps every spelling of an IPv4-mapped address to the IPv4 key", () => {
    expect(addressKey("10.8.8.8:1234")).toBe("10.8.8.8");
    expect(addressKey("10.8.8.8:80")).toBe("10.8.8.8");
    expect(addressKey("::ffff:a08:808")).toBe("10.8.8.8");
    expect(addressKey("0:0:0:0:0:ffff:10.8.8.8")).toBe("10.8.8.8");
    expect(addressKey("0000:0000:0000:0000:0000:FFFF:0a08:0808")).toBe("10.8.8.8");
    expect(addressKey("[::ffff:10.8.8.8]:443")).toBe("10.8.8.8");
    expect(addressKey("[2001:db8:0:7::1]:443")).toBe("2001:db8:0:7::/64");
  });

  it("leaves anything else as it is", () => {
    expect(addressKey("")).toBe("");
    expect(addressKey("not an address")).toBe("not an address");
  });
});
