package keyspace

import "strings"

// SlotCount is how many hash slots a Redis Cluster divides keys into.
const SlotCount = 16384

// Slot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of its hash
// tag, modulo SlotCount. The tag is what lies between the first "{" and
// the first "}" after it, when that is not empty; otherwise the whole key.
// ragd computes it itself (go-redis keeps its own internal) so tests can
// check that what a script or transaction touches shares one slot.
func Slot(key string) int {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if end := strings.IndexByte(key[open+1:], '}'); end > 0 {
			key = key[open+1 : open+1+end]
		}
	}
	return int(crc16(key)) % SlotCount
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), the
// checksum Redis Cluster hashes keys with.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
