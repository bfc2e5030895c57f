/*
 * bcryptprimitives.dll for Wine 8: exports ProcessPrng, which the Go runtime
 * (1.22 and later) needs on Windows and Wine 8.0 lacks, and forwards it to
 * BCryptGenRandom with the system's preferred generator. Installed into the
 * test prefix's system32 by scripts/wine-test.sh; never shipped.
 * Signature after Microsoft's documentation of ProcessPrng
 * (learn.microsoft.com, "ProcessPrng function").
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
