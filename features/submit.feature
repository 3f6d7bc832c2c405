@submit
Feature: Submit a payment
  payment/submit supplies the buyer's card for the payment created earlier
  and executes it; the merchant then sends the buyer to userRedirect.href.

  Background:
    Given a payment created by the merchant

  @core @req:SUBMIT-01 @req:SUBMIT-02 @req:SUBMIT-03 @req:SUBMIT-04
  Scenario: A card not enrolled in 3-D Secure is paid at once
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the request is correctly processed
    And the transaction type is "submit"
    And the transaction result is "OK"
    And no issuer authentication is asked for
    And the payment ID is the one create returned
    And the redirect address is an absolute or scheme-relative http(s) address

  @core @req:SUBMIT-05 @success-page @result-page
  Scenario: The buyer is sent to the success page of the back-office
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the buyer sent to the redirect address lands on the merchant's success page

  @reference @req:REF-ENV-01
  Scenario: A paid submit answers HTTP 200
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the answer has HTTP status 200

  @reference @req:REF-PAY-01 @req:REF-ENV-01
  Scenario: A payment token is used once
    When the buyer pays with the card not enrolled in 3-D Secure
    And the buyer pays again with the same payment token
    Then the request is refused with HTTP 400 and code "1137"

  @reference @req:REF-PAY-02 @req:REF-ENV-01 @token-lifetime
  Scenario: A payment token expires after its lifetime
    Given a payment whose token has expired
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the request is refused with HTTP 403 and code "1457"

  @reference @req:REF-PAY-03 @req:REF-ENV-01 @declined-card @failure-page
  Scenario: A declined card is not paid and the buyer is sent to the failure page
    When the buyer pays with the declined card
    Then the request is correctly processed
    And the transaction result is "KO"
    And the transaction error code is "74"
    And the transaction error description is not empty
    And the redirect address is the merchant's failure page

  @reference @req:REF-PAY-04 @req:REF-ENV-01
  Scenario: Return addresses passed to submit replace the back-office pages
    When the buyer pays with the card not enrolled in 3-D Secure, returning to "https://shop.example/thanks" or "https://shop.example/sorry"
    Then the redirect address is the page "https://shop.example/thanks", with any parameters the service appends

  @reference @req:REF-PAY-04 @req:REF-ENV-01 @declined-card
  Scenario: A declined buyer goes to the failure address passed to submit
    When the buyer pays with the declined card, returning to "https://shop.example/thanks" or "https://shop.example/sorry"
    Then the redirect address is the page "https://shop.example/sorry", with any parameters the service appends

  @reference @req:REF-PAY-04 @req:REF-ENV-01
  Scenario Outline: Return addresses that are not absolute http(s) addresses are refused: <address>
    When the buyer pays with the card not enrolled in 3-D Secure, returning to "<address>" or "https://shop.example/sorry"
    Then the request is refused with HTTP 400 and code "1105"

    Examples:
      | address             |
      | /relative/thanks    |
      | javascript:alert(1) |
      | ftp://shop.example/ |

  @reference @req:REF-VAL-04 @req:REF-ENV-01
  Scenario: A submit for another shop than the payment's is refused
    When the buyer pays with the card not enrolled in 3-D Secure for the shop "ANOTHER_SHOP"
    Then the request is refused with HTTP 400 and code "1131"

  @reference @req:REF-VAL-06 @req:REF-ENV-01
  Scenario Outline: A card number of the wrong length or check digit is refused: <what>
    When the buyer pays with the card number "<number>"
    Then the request is refused with HTTP 400 and code "<code>"

    Examples:
      | what              | number               | code |
      | 8 digits          | 47757188             | 1119 |
      | 20 digits         | 47757188000020261234 | 1119 |
      | spaces            | 4775 7188 0000 2026  | 1118 |
      | wrong check digit | 4775718800002027     | 1120 |

  @reference @req:REF-VAL-07 @req:REF-ENV-01
  Scenario Outline: An invalid or past expiry date is refused: <month>/<year>
    When the buyer pays with the card not enrolled in 3-D Secure expiring "<month>"/"<year>"
    Then the request is refused with HTTP 400 and code "<code>"

    Examples:
      | month | year | code | field    |
      | 13    | 30   | 1124 | expMonth |
      | 00    | 30   | 1124 | expMonth |
      | 1     | 30   | 1124 | expMonth |
      | 12    | 2030 | 1125 | expYear  |
      | 12    | 20   | 1126 | expired  |

  @reference @req:REF-VAL-08 @req:REF-ENV-01
  Scenario Outline: A security code that is not 3 or 4 digits is refused: <what>
    When the buyer pays with the card not enrolled in 3-D Secure and the security code "<cvv>"
    Then the request is refused with HTTP 400 and code "1149"

    Examples:
      | what     | cvv   |
      | 2 digits | 12    |
      | 5 digits | 12345 |
      | a letter | 12a   |

  @reference @req:REF-VAL-10 @real-client
  Scenario: A submit without a buyer, as clients of the real service send it, is paid
    When the buyer pays with the card not enrolled in 3-D Secure without buyer
    Then the request is correctly processed
    And the transaction result is "OK"

  @reference @req:REF-VAL-11 @real-client
  Scenario Outline: A submit with DCC as the string clients of the real service send is paid: <dcc>
    When the buyer pays with the card not enrolled in 3-D Secure with DCC "<dcc>"
    Then the request is correctly processed
    And the transaction result is "OK"

    Examples:
      | dcc   |
      | false |
      | true  |

  @reference @req:REF-VAL-09 @req:REF-ENV-01
  Scenario Outline: A buyer's e-mail address that is given must be well formed: <email>, named "<name>"
    When the buyer pays with the card not enrolled in 3-D Secure as "<name>" with e-mail "<email>"
    Then the request is refused with HTTP 400 and code "1127"

    Examples:
      | name     | email             | field       |
      |          | jane              | buyer.email |
      | Jane Doe | jane              | buyer.email |
      | Jane Doe | jane@localhost    | buyer.email |

  @reference @req:REF-VAL-05 @req:REF-ENV-01
  Scenario Outline: A submit without one of its fields is refused, naming it: <field>
    When the buyer pays with the card not enrolled in 3-D Secure without <field>
    Then the request is refused with HTTP 400 and code "<code>"

    Examples:
      | field                                   | code |
      | shopLogin                               | 1105 |
      | paymentTypeDetails                      | 1461 |
      | paymentTypeDetails.creditcard           | 1461 |
      | paymentTypeDetails.creditcard.number    | 1138 |
      | paymentTypeDetails.creditcard.expMonth  | 1138 |
      | paymentTypeDetails.creditcard.expYear   | 1138 |
      | paymentTypeDetails.creditcard.CVV       | 1149 |
