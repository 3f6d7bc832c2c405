@notification
Feature: Server notifications
  When a payment reaches its outcome, the service posts it to the merchant's
  server, at the serverNotificationURL submit passes: merchants fulfil
  orders from that call, not from the buyer's redirect, as a buyer may
  close the tab before landing. payconf listens at the address the target
  file's [notifications] names, passes a mailbox of its own under it to
  each submit, and checks what arrives. The contract says only that the
  service posts the result there; the body, the signature and the retries
  are the reference profile's (the paymentOutcome callback of the spec).
  These scenarios run when the target file declares [notifications].

  Background:
    Given payconf listens for the merchant's server notifications
    And a payment created by the merchant

  @reference @req:REF-NOTIFY-02 @issuer
  Scenario: A payment completed through 3-D Secure is notified as paid
    When the buyer pays with the card enrolled in 3-D Secure
    And the buyer completes the issuer authentication
    Then one notification of the payment arrives, saying it is paid

  @reference @req:REF-NOTIFY-01
  Scenario: A payment paid at submit is notified as paid
    When the buyer pays with the card not enrolled in 3-D Secure
    Then one notification of the payment arrives, saying it is paid

  @reference @req:REF-NOTIFY-03 @signature
  Scenario: A notification is signed with the shop's signing secret
    When the buyer pays with the card not enrolled in 3-D Secure
    Then a notification of the payment arrives
    And its signature verifies with the shop's signing secret

  @reference @req:REF-NOTIFY-04
  Scenario: A notification the merchant's server refuses is posted again
    Given payconf refuses the first notification with HTTP 500
    When the buyer pays with the card not enrolled in 3-D Secure
    Then a notification of the payment arrives
    And it is posted again with the same event ID
