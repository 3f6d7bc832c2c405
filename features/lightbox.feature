@payment-page @lightbox
Feature: The lightbox, opened from a shop's page
  A shop's page written for the real service includes the service's
  lightbox script, sets axerve.lightBox.shop and calls
  axerve.lightBox.open(paymentID, paymentToken, callback); it tests the
  callback's status "OK". payconf's own shop page does exactly that with the
  script the target file declares ([payment_page.lightbox]), and the buyer
  pays there in the browser. The contract names the lightbox but not its
  script: these are the real service's ways (real-service › RS-LIGHTBOX),
  run when the target declares the script and the browser driver drives,
  and skipped, saying so, when not.

  Background:
    Given a payment created by the merchant

  @reference @req:REF-LIGHT-01
  Scenario: On a desktop, the lightbox lays the payment page over the shop's page, and the callback is told the paid payment is OK
    When the buyer pays with the card not enrolled in 3-D Secure in the lightbox the shop's page opens
    Then the shop's callback is told the payment is paid
    And the payment page was shown in the lightbox's overlay on the shop's page

  @reference @req:REF-LIGHT-02 @issuer
  Scenario: A card enrolled in 3-D Secure goes through the issuer's authentication inside the lightbox, and the callback is told OK
    When the buyer pays with the card enrolled in 3-D Secure in the lightbox the shop's page opens, completing the issuer authentication
    Then the shop's callback is told the payment is paid

  @reference @req:REF-LIGHT-03 @success-page
  Scenario: Opened with no callback, the lightbox sends the buyer to the result's address, the merchant's success page
    When the buyer pays with the card not enrolled in 3-D Secure in the lightbox the shop's page opens with no callback
    Then the buyer lands on the merchant's success page

  @reference @req:REF-LIGHT-04
  Scenario: On a phone's narrow screen, the lightbox opens the payment page in a window of its own, and the callback is told OK
    When the buyer, on a phone's narrow screen, pays with the card not enrolled in 3-D Secure in the lightbox the shop's page opens
    Then the shop's callback is told the payment is paid
    And the payment page was shown in a window of its own, not on the shop's page

  @reference @req:REF-LIGHT-05
  Scenario: An empty payment token is refused to the callback with 1134 before anything opens
    When the shop's page opens the lightbox with an empty payment token
    Then the shop's callback is told error "1134" with no payload, and nothing opened

  @reference @req:REF-LIGHT-06 @declined-card
  Scenario: A declined card, paid in the lightbox, is told to the callback as not OK
    When the buyer pays with the declined card in the lightbox the shop's page opens
    Then the shop's callback is told the payment is not paid
