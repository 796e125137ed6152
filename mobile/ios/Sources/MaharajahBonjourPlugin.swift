// The iOS side of LAN discovery (issue 22): Bonjour through Apple's own stack, which needs no
// multicast entitlement (mdns-sd's raw sockets do). A Tauri 2 mobile plugin; its Rust side is
// crates/net/src/bonjour.rs (the commands and event shapes are documented there, and a
// scripted stand-in of exactly these shapes tests the Rust side on the desktop).
//
// Browsing: NWBrowser for `_maharajah._tcp` with its TXT record; each result is resolved to an
// IPv4 address and port with a short NWConnection (the host's server sees one connection that
// closes at once). Advertising: NetService, because NWListener can only announce a port it
// listens on itself, and the embedded server (tokio) already holds the game's port.
//
// Events: ONE channel for the plugin's life (`listen`), every event tagged with the `id` of its
// browse or advert. Tauri 2 keeps each channel handed to a mobile plugin in a Rust-side table it
// never empties (`Channel::new` registers; there is no removal), so a channel per browse or
// advert would leak one registration per start. Stopping releases everything else a browse or
// advert holds here (NWBrowser and its resolving NWConnections cancelled and their handlers
// cleared; the NetService stopped and its delegate cleared) and the Rust side drops its route.
//
// NOT COMPILED on the machine this was written on (Linux, no Xcode): written against Tauri 2's
// iOS plugin API as its sources define it (Plugin, Invoke.parseArgs, Invoke.resolve/reject,
// Channel: Decodable with `send<T: Encodable>(_:) throws`) and Apple's Network framework /
// Foundation NetService documentation. See mobile/README.md.

import Foundation
import Network
import SwiftRs
import Tauri
import UIKit
import WebKit

/// `kDNSServiceErr_PolicyDenied` (dns_sd.h): the person refused local-network access.
private let policyDenied: Int32 = -65570

private let serviceType = "_maharajah._tcp"

class ListenArgs: Decodable {
  let onEvent: Channel
}

class IdArgs: Decodable {
  let id: UInt32
}

class AdvertiseArgs: Decodable {
  let id: UInt32
  let name: String
  let port: UInt16
  let txt: [String: String]
}

class UpdateArgs: Decodable {
  let id: UInt32
  let txt: [String: String]
}

/// One event on the channel; absent fields are left out of the JSON. `id` names the browse or
/// advert (set by `Emitter`).
struct BonjourEvent: Encodable {
  var id: UInt32 = 0
  let event: String
  var name: String? = nil
  var port: UInt16? = nil
  var addresses: [String]? = nil
  var txt: [String: String]? = nil
  var message: String? = nil
}

/// Sends the events of one browse or advert on the plugin's one channel, tagged with its id.
struct Emitter {
  let id: UInt32
  let channel: Channel

  func send(_ event: BonjourEvent) {
    var tagged = event
    tagged.id = id
    do {
      try channel.send(tagged)
    } catch {
      NSLog("maharajah bonjour: cannot send \(event.event): \(error)")
    }
  }
}

private func isPolicyDenied(_ error: NWError) -> Bool {
  if case .dns(let code) = error, code == policyDenied {
    return true
  }
  return false
}

/// One running browse.
final class Browse {
  let browser: NWBrowser
  let emitter: Emitter
  /// Resolving connections by instance name.
  var resolving: [String: NWConnection] = [:]
  /// Set by `cancel`: nothing is reported afterwards.
  var stopped = false

  init(emitter: Emitter, queue: DispatchQueue) {
    self.emitter = emitter
    let descriptor = NWBrowser.Descriptor.bonjourWithTXTRecord(type: serviceType, domain: nil)
    let parameters = NWParameters()
    parameters.includePeerToPeer = false
    browser = NWBrowser(for: descriptor, using: parameters)
    browser.stateUpdateHandler = { [weak self] state in self?.stateChanged(state) }
    browser.browseResultsChangedHandler = { [weak self] _, changes in
      self?.resultsChanged(changes, queue: queue)
    }
    browser.start(queue: queue)
  }

  func stateChanged(_ state: NWBrowser.State) {
    if stopped { return }
    switch state {
    case .ready:
      emitter.send(BonjourEvent(event: "searching"))
    case .waiting(let error), .failed(let error):
      if isPolicyDenied(error) {
        emitter.send(BonjourEvent(event: "permissionDenied"))
      } else {
        emitter.send(BonjourEvent(event: "error", message: "\(error)"))
      }
    default:
      break
    }
  }

  func resultsChanged(_ changes: Set<NWBrowser.Result.Change>, queue: DispatchQueue) {
    if stopped { return }
    for change in changes {
      switch change {
      case .added(let result):
        resolve(result, queue: queue)
      case .changed(old: _, new: let result, flags: _):
        resolve(result, queue: queue)
      case .removed(let result):
        if case .service(let name, _, _, _) = result.endpoint {
          resolving.removeValue(forKey: name)?.cancel()
          emitter.send(BonjourEvent(event: "lost", name: name))
        }
      default:
        break
      }
    }
  }

  /// Finds the result's IPv4 address and port, then reports it as `found` with its TXT record.
  func resolve(_ result: NWBrowser.Result, queue: DispatchQueue) {
    guard case .service(let name, _, _, _) = result.endpoint else { return }
    var txt: [String: String] = [:]
    if case .bonjour(let record) = result.metadata {
      txt = record.dictionary
    }
    let parameters = NWParameters.tcp
    if let ip = parameters.defaultProtocolStack.internetProtocol as? NWProtocolIP.Options {
      ip.version = .v4
    }
    let connection = NWConnection(to: result.endpoint, using: parameters)
    resolving.removeValue(forKey: name)?.cancel()
    resolving[name] = connection
    connection.stateUpdateHandler = { [weak self, weak connection] state in
      guard let self = self, let connection = connection, !self.stopped else { return }
      switch state {
      case .ready:
        if case .hostPort(let host, let port) = connection.currentPath?.remoteEndpoint {
          var addresses: [String] = []
          switch host {
          case .ipv4(let a):
            addresses.append("\(a)".components(separatedBy: "%")[0])
          case .ipv6(let a):
            addresses.append("\(a)")
          default:
            break
          }
          self.emitter.send(
            BonjourEvent(
              event: "found", name: name, port: port.rawValue, addresses: addresses, txt: txt))
        }
        connection.cancel()
        self.resolving.removeValue(forKey: name)
      case .waiting(let error), .failed(let error):
        if isPolicyDenied(error) {
          self.emitter.send(BonjourEvent(event: "permissionDenied"))
        } else {
          self.emitter.send(BonjourEvent(event: "error", message: "resolving \(name): \(error)"))
        }
        connection.cancel()
        self.resolving.removeValue(forKey: name)
      default:
        break
      }
    }
    connection.start(queue: queue)
  }

  /// Stops browsing and releases the browser's and the connections' handlers.
  func cancel() {
    stopped = true
    browser.stateUpdateHandler = nil
    browser.browseResultsChangedHandler = nil
    browser.cancel()
    for (_, c) in resolving {
      c.stateUpdateHandler = nil
      c.cancel()
    }
    resolving.removeAll()
  }
}

/// One advert (NetService needs a run loop: every call happens on the main thread).
final class Advert: NSObject, NetServiceDelegate {
  let service: NetService
  let emitter: Emitter

  init(name: String, port: UInt16, txt: [String: String], emitter: Emitter) {
    self.emitter = emitter
    service = NetService(domain: "local.", type: serviceType + ".", name: name, port: Int32(port))
    super.init()
    service.delegate = self
    setTXT(txt)
    service.publish()
  }

  func setTXT(_ txt: [String: String]) {
    let record = NetService.data(fromTXTRecord: txt.mapValues { Data($0.utf8) })
    if !service.setTXTRecord(record) {
      emitter.send(BonjourEvent(event: "error", message: "the TXT record was refused"))
    }
  }

  /// Withdraws for good: nothing is reported afterwards.
  func stop() {
    service.delegate = nil
    service.stop()
  }

  func netServiceDidPublish(_ sender: NetService) {
    emitter.send(BonjourEvent(event: "published", name: sender.name))
  }

  func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
    let code = errorDict[NetService.errorCode]?.int32Value ?? 0
    if code == policyDenied {
      emitter.send(BonjourEvent(event: "permissionDenied"))
    } else {
      emitter.send(BonjourEvent(event: "error", message: "publishing failed (\(code))"))
    }
  }
}

class MaharajahBonjourPlugin: Plugin {
  private let queue = DispatchQueue(label: "app.maharajah.chess.bonjour")
  private var browses: [UInt32: Browse] = [:]
  private var adverts: [UInt32: Advert] = [:]
  /// Adverts withdrawn (stopped) but kept for `updateAdvert` to publish again.
  private var withdrawn: Set<UInt32> = []
  /// The one event channel (`listen`); commands may arrive on any thread.
  private let channelLock = NSLock()
  private var channel: Channel?

  private func emitter(_ id: UInt32, _ invoke: Invoke) -> Emitter? {
    channelLock.lock()
    defer { channelLock.unlock() }
    guard let channel = channel else {
      invoke.reject("no event channel: call listen first")
      return nil
    }
    return Emitter(id: id, channel: channel)
  }

  /// Takes the channel every event goes on (the Rust side sends it once).
  @objc public func listen(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(ListenArgs.self)
    channelLock.lock()
    channel = args.onEvent
    channelLock.unlock()
    invoke.resolve()
  }

  @objc public func browse(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(IdArgs.self)
    guard let emitter = emitter(args.id, invoke) else { return }
    queue.async {
      self.browses.removeValue(forKey: args.id)?.cancel()
      self.browses[args.id] = Browse(emitter: emitter, queue: self.queue)
    }
    invoke.resolve()
  }

  @objc public func stopBrowse(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(IdArgs.self)
    queue.async {
      self.browses.removeValue(forKey: args.id)?.cancel()
    }
    invoke.resolve()
  }

  @objc public func advertise(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(AdvertiseArgs.self)
    guard let emitter = emitter(args.id, invoke) else { return }
    DispatchQueue.main.async {
      self.adverts.removeValue(forKey: args.id)?.stop()
      self.withdrawn.remove(args.id)
      self.adverts[args.id] = Advert(
        name: args.name, port: args.port, txt: args.txt, emitter: emitter)
      invoke.resolve()
    }
  }

  @objc public func updateAdvert(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(UpdateArgs.self)
    DispatchQueue.main.async {
      guard let advert = self.adverts[args.id] else {
        invoke.reject("no advert \(args.id)")
        return
      }
      advert.setTXT(args.txt)
      if self.withdrawn.remove(args.id) != nil {
        advert.service.publish()
      }
      invoke.resolve()
    }
  }

  @objc public func withdrawAdvert(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(IdArgs.self)
    DispatchQueue.main.async {
      if let advert = self.adverts[args.id], !self.withdrawn.contains(args.id) {
        advert.service.stop()
        self.withdrawn.insert(args.id)
      }
      invoke.resolve()
    }
  }

  @objc public func stopAdvert(_ invoke: Invoke) throws {
    let args = try invoke.parseArgs(IdArgs.self)
    DispatchQueue.main.async {
      self.adverts.removeValue(forKey: args.id)?.stop()
      self.withdrawn.remove(args.id)
      invoke.resolve()
    }
  }
}

@_cdecl("init_plugin_maharajah_bonjour")
func initPlugin() -> Plugin {
  return MaharajahBonjourPlugin()
}
