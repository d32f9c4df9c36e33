# Part of tools/emulated-cluster: validates a cluster description (see `--help`) and prints the
# cluster's name, then one line per host, "short cpu rateMbit nics isDisplay", in hostfile
# order with the display last. cpu and rateMbit are 0 where the description gives none.
# A bad description fails with error("description: ...") saying what is wrong and where.
def fail(m): error("description: " + m);
def num(o; k; where):
    if (o | has(k)) | not then 0
    elif (o[k] | type) != "number" or o[k] <= 0 then fail(where + ": \"" + k + "\" must be a number > 0")
    else o[k] end;
def keys_ok(o; allowed; where):
    (o | keys - allowed) as $bad
    | if ($bad | length) > 0 then fail(where + ": unknown key(s) " + ($bad | join(", ")) + " (allowed: " + (allowed | join(", ")) + ")") else . end;
if type != "object" then fail("not a JSON object") else . end
| keys_ok(.; ["name", "hosts", "display"]; "top level")
| if (.name | type) != "string" then fail("\"name\" (a string) is missing") else . end
| if (.hosts | type) != "array" or (.hosts | length) == 0 then fail("\"hosts\" must be a non-empty array of host groups") else . end
| . as $d
| [ $d.hosts | to_entries[] | .key as $i | .value as $g
    | "hosts[\($i)]" as $w
    | if ($g | type) != "object" then fail($w + ": not an object") else . end
    | keys_ok($g; ["name", "count", "cpu", "rateMbit"]; $w)
    | if ($g.name | type) != "string" or ($g.name | test("^[a-z][a-z0-9]*$") | not)
      then fail($w + ": \"name\" must match [a-z][a-z0-9]* (no dash)") else . end
    | if ($g | has("count")) and (($g.count | type) != "number" or $g.count < 1 or $g.count != ($g.count | floor))
      then fail($w + ": \"count\" must be an integer >= 1") else . end
    | num($g; "cpu"; $w) as $cpu | num($g; "rateMbit"; $w) as $rate
    | if $g | has("count") then range(0; $g.count) as $k | [($g.name + ($k | tostring)), $cpu, $rate, 1, 0]
      else [$g.name, $cpu, $rate, 1, 0] end ] as $hosts
| (if $d | has("display") then
     $d.display as $x
     | if ($x | type) != "object" then fail("\"display\" must be an object") else . end
     | keys_ok($x; ["name", "nics", "cpu", "rateMbit"]; "display")
     | ($x.name // "display") as $n
     | if ($n | type) != "string" or ($n | test("^[a-z][a-z0-9]*$") | not)
       then fail("display: \"name\" must match [a-z][a-z0-9]* (no dash)") else . end
     | ($x.nics // 1) as $k
     | if ($k | type) != "number" or $k < 1 or $k > 16 or $k != ($k | floor)
       then fail("display: \"nics\" must be an integer 1..16") else . end
     | [[$n, (if $x | has("cpu") then num($x; "cpu"; "display") else num($d.hosts[0]; "cpu"; "hosts[0]") end),
         (if $x | has("rateMbit") then num($x; "rateMbit"; "display") else num($d.hosts[0]; "rateMbit"; "hosts[0]") end),
         $k, 1]]
   else [$hosts[-1] | .[4] = 1] end) as $display
| (if $d | has("display") then $hosts else $hosts[:-1] end) + $display
| if length > 200 then fail("at most 200 hosts") else . end
| (map(.[0]) | group_by(.) | map(select(length > 1) | .[0])) as $dup
| if ($dup | length) > 0 then fail("duplicate host name(s) " + ($dup | join(", "))) else . end
| (map(.[3]) | add) as $addresses
| if $addresses > 250 then fail("too many addresses (hosts + display NICs > 250)") else . end
| $d.name, (.[] | map(tostring) | join(" "))
