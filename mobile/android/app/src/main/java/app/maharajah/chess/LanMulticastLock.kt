package app.maharajah.chess

import android.content.Context
import android.net.wifi.WifiManager

/**
 * Holds the Wi-Fi multicast lock while the app browses for LAN hosts or advertises one
 * (issue 8). Android drops incoming multicast (and so mDNS) unless some app holds this lock.
 *
 * Browsing and advertising are counted separately; the system lock is acquired exactly once when
 * the first of them starts and released exactly once when the last of them stops. The lock is
 * created non-reference-counted, so a double acquire or a release without acquire can never
 * unbalance it; [acquire] and [release] for the same [Use] are idempotent.
 *
 * Call from the Tauri plugin / activity:
 * ```
 * LanMulticastLock.acquire(context, LanMulticastLock.Use.BROWSING)   // list of hosts shown
 * LanMulticastLock.release(LanMulticastLock.Use.BROWSING)            // list closed, or onStop
 * LanMulticastLock.acquire(context, LanMulticastLock.Use.ADVERTISING) // hosting, seat open
 * LanMulticastLock.release(LanMulticastLock.Use.ADVERTISING)          // seat taken or host stops
 * ```
 * Some vendor builds ignore the lock; the join code and typed address remain as fallbacks.
 */
object LanMulticastLock {
    enum class Use { BROWSING, ADVERTISING }

    private const val TAG = "maharajah-mdns"
    private val active = mutableSetOf<Use>()
    private var lock: WifiManager.MulticastLock? = null

    /** Marks [use] as active; acquires the system lock if it is the first active use. */
    @Synchronized
    fun acquire(context: Context, use: Use) {
        if (!active.add(use)) return // already active: nothing to do
        if (active.size == 1) {
            val wifi = context.applicationContext.getSystemService(Context.WIFI_SERVICE) as WifiManager
            val l = wifi.createMulticastLock(TAG)
            l.setReferenceCounted(false)
            l.acquire()
            lock = l
        }
    }

    /** Marks [use] as stopped; releases the system lock once no use is active. */
    @Synchronized
    fun release(use: Use) {
        if (!active.remove(use)) return // was not active: nothing to release
        if (active.isEmpty()) {
            lock?.let { if (it.isHeld) it.release() }
            lock = null
        }
    }

    /** Whether the system lock is held now (for tests and diagnostics). */
    @Synchronized
    fun isHeld(): Boolean = lock?.isHeld == true
}
